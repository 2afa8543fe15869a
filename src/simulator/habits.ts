import { parseAddress } from '../chain/address.ts';
import { Draws } from './hash.ts';
import { DEFAULT_SEED } from './world.ts';

/**
 * How often a simulated wallet changes (the living world, world.habits): each wallet draws one habit
 * from (address, seed), a heavy-tailed mix like real watchlists, where most wallets sit still for
 * weeks and a few trade all day (docs/simulator.md, "Wallet habits"):
 *
 *   habit    share  positions change
 *   dormant   75 %  Poisson, mean interval 2 to 8 weeks
 *   daily     15 %  Poisson, mean interval 12 to 48 hours
 *   hourly     4 %  Poisson, mean interval 30 to 120 minutes
 *   bursty     6 %  quiet 2 to 10 days, then a burst of 3 to 8 changes within an hour
 *
 * A wallet's mean interval is drawn log-uniformly within its habit's range. Its NFT holdings follow
 * the same kind of process slowed NFT_SLOWDOWN times (a fifth of the positions rate).
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

export type HabitName = 'dormant' | 'daily' | 'hourly' | 'bursty';

/** The datasets whose answers change at change events. */
export type WorldDataset = 'positions' | 'nfts';
export const WORLD_DATASETS: readonly WorldDataset[] = ['positions', 'nfts'];

export const NFT_SLOWDOWN = 5;

/** A burst: `size` changes at uniform times within `withinMs` of its start. */
export const BURST = { size: { min: 3, max: 8 }, withinMs: HOUR } as const;

/** The mix: each habit's share of wallets and its range of mean intervals (bursty: of quiet spells). */
export const HABIT_MIX: readonly { habit: HabitName; share: number; rangeMs: readonly [number, number] }[] = [
  { habit: 'dormant', share: 0.75, rangeMs: [2 * WEEK, 8 * WEEK] },
  { habit: 'daily', share: 0.15, rangeMs: [12 * HOUR, 48 * HOUR] },
  { habit: 'hourly', share: 0.04, rangeMs: [30 * MINUTE, 120 * MINUTE] },
  { habit: 'bursty', share: 0.06, rangeMs: [2 * DAY, 10 * DAY] },
];

/**
 * When one dataset of a wallet changes.
 * - poisson: a Poisson process with the given mean interval.
 * - bursts: time is cut into cycles of `cycleMs` starting at `phaseMs`; each cycle holds one burst
 *   starting uniformly within its first `startSpreadMs`, so that two bursts are cycleMs ±
 *   startSpreadMs apart (2 to 10 days for positions).
 * `meanIntervalMs` is the long-run mean time between two changes in both.
 */
export type ChangeProcess =
  | { kind: 'poisson'; meanIntervalMs: number }
  | { kind: 'bursts'; meanIntervalMs: number; cycleMs: number; startSpreadMs: number; phaseMs: number };

export interface WalletHabit {
  /** The address in its normal form. */
  address: string;
  habit: HabitName;
  positions: ChangeProcess;
  nfts: ChangeProcess;
}

/** The habit of a wallet; throws InvalidInputError for an address of no known format. */
export function walletHabit(address: string, seed: string = DEFAULT_SEED): WalletHabit {
  const { address: owner } = parseAddress(address);
  const draws = new Draws(seed, owner, 'habit');
  const roll = draws.unit();
  let cumulative = 0;
  const entry = HABIT_MIX.find(({ share }) => roll < (cumulative += share)) ?? HABIT_MIX[0]!;
  const [low, high] = entry.rangeMs;
  if (entry.habit !== 'bursty') {
    const meanIntervalMs = Math.round(Math.exp(draws.between(Math.log(low), Math.log(high))));
    return {
      address: owner,
      habit: entry.habit,
      positions: { kind: 'poisson', meanIntervalMs },
      nfts: { kind: 'poisson', meanIntervalMs: meanIntervalMs * NFT_SLOWDOWN },
    };
  }
  const phase = draws.unit();
  const bursts = (slowdown: number): ChangeProcess => {
    const cycleMs = ((low + high) / 2) * slowdown;
    const meanBurst = (BURST.size.min + BURST.size.max) / 2;
    const startSpreadMs = ((high - low) / 2) * slowdown;
    const meanIntervalMs = Math.round(cycleMs / meanBurst);
    return { kind: 'bursts', meanIntervalMs, cycleMs, startSpreadMs, phaseMs: Math.floor(phase * cycleMs) };
  };
  return { address: owner, habit: 'bursty', positions: bursts(1), nfts: bursts(NFT_SLOWDOWN) };
}
