import type { AddressDataset } from '../datasets.ts';
import {
  lockRefreshTarget,
  saveRefreshTarget,
  type RefreshTargetRow,
  type StoredRefresh,
  type TargetState,
} from '../db/stores/refresh-targets.ts';
import type { Tx } from '../db/transaction.ts';
import { estimateChangeRate, NO_EVIDENCE, observe, type History } from './change-rate.ts';
import type { DatasetDemand, RefreshTarget } from './policy.ts';
import { changeCount, nftSubstance, positionsSubstance, type Substance } from './substance.ts';

/**
 * A target's refresh from due to next due (docs/architecture.md, "From cron to row"): the producer
 * asks the policy which targets a slot refreshes (policy.ts, through targetsOf and demandOf); the
 * worker stores the answer and, in the same transaction, recordRefresh compares its substance with
 * the previous one and updates the change-rate estimate the next slots read.
 */

export interface RefreshAnswer {
  dataset: AddressDataset;
  target: string;
  tick: Date;
  /** The answer's substance (substance.ts); null when it was not stored whole (an element quarantined). */
  substance: Substance | null;
  /** Positions: the prices the answer carried, by `<chain>:<token>` (what a later price move is measured from). */
  prices?: Record<string, number>;
}

export interface RefreshOutcome {
  /** Whether the answer was compared with a previous complete one. */
  compared: boolean;
  changed: boolean;
  /** Seconds since the previous refresh; null for the first or an older tick finishing late. */
  sinceSeconds: number | null;
  ratePerHour: number;
}

/** Records a refresh of a target in the job's transaction (its row locked until it commits). */
export async function recordRefresh(tx: Tx, answer: RefreshAnswer): Promise<RefreshOutcome> {
  const previous = await lockRefreshTarget(tx, answer.dataset, answer.target);
  const tickSeconds = Math.floor(answer.tick.getTime() / 1000);
  if (previous && previous.lastTick.getTime() >= answer.tick.getTime()) {
    // An older tick finishing after a newer one: what it saw is already out of date.
    return { compared: false, changed: false, sinceSeconds: null, ratePerHour: previous.changeRatePerHour };
  }
  const sinceSeconds = previous ? tickSeconds - Math.floor(previous.lastTick.getTime() / 1000) : null;
  const compared = previous?.substance != null && answer.substance !== null && sinceSeconds !== null;
  const count = compared ? changeCount(previous.substance as Substance, answer.substance!) : 0;
  const changed = count > 0;
  const before: History = { evidence: previous?.evidence ?? NO_EVIDENCE, recent: previous?.observations ?? [] };
  const history = compared ? observe(before, [tickSeconds, sinceSeconds!, count]) : before;
  const ratePerHour = estimateChangeRate(history.evidence);
  await saveRefreshTarget(tx, {
    dataset: answer.dataset,
    target: answer.target,
    lastTick: answer.tick,
    substance: answer.substance ?? previous?.substance ?? null,
    observations: history.recent,
    evidence: history.evidence,
    prices: answer.prices ?? previous?.prices ?? null,
    changeRatePerHour: ratePerHour,
    changedAt: changed ? answer.tick : (previous?.changedAt ?? null),
    compared: (previous?.compared ?? 0) + (compared ? 1 : 0),
    changes: (previous?.changes ?? 0) + (changed ? 1 : 0),
  });
  return { compared, changed, sinceSeconds, ratePerHour };
}

/** The prior estimate: a target no refresh has taught anything yet. */
export const PRIOR_RATE_PER_HOUR = estimateChangeRate(NO_EVIDENCE);

/** The policy's view of the targets: a max age of its own or `defaultMaxAgeMs`; the prior until recorded. */
export function targetsOf(states: readonly TargetState[], defaultMaxAgeMs: number): RefreshTarget[] {
  return states.map((state) => ({
    target: state.target,
    lastTickMs: state.lastTick?.getTime() ?? null,
    ratePerHour: state.changeRatePerHour ?? PRIOR_RATE_PER_HOUR,
    maxAgeMs: state.maxAgeSeconds !== null ? state.maxAgeSeconds * 1000 : defaultMaxAgeMs,
    everyMs: state.everySeconds !== null ? state.everySeconds * 1000 : null,
    ...(state.priceMove !== null ? { priceMove: state.priceMove } : {}),
  }));
}

/** What a dataset's targets ask of the quota: every slot at most, their max ages and pins at least. */
export function demandOf(
  dataset: AddressDataset,
  targets: readonly RefreshTarget[],
  slotsPerHour: number,
): DatasetDemand {
  const periodMs = slotsPerHour > 0 ? 3_600_000 / slotsPerHour : Number.POSITIVE_INFINITY;
  let floorPerHour = 0;
  for (const target of targets) {
    // policy.ts refreshes a target two periods before its max age, a pinned one half a period early.
    const intervalMs = target.everyMs !== null ? target.everyMs - periodMs / 2 : target.maxAgeMs - 2 * periodMs;
    floorPerHour += 3_600_000 / Math.max(periodMs, intervalMs);
  }
  return { dataset, targets: targets.length, slotsPerHour, floorPerHour: slotsPerHour > 0 ? floorPerHour : 0 };
}

/**
 * What an installation that ran before the refresh policy knows of a target (refresh_targets has no
 * row for it): its stored refreshes, oldest first, compared as live refreshes are, into the history
 * the estimator reads. The substance stays null (stored snapshots lack what a live answer's has, such
 * as NFT token ids): the next live refresh is not compared, the one after is.
 */
export function historyFromStoredRefreshes(
  dataset: AddressDataset,
  refreshes: readonly StoredRefresh[],
): RefreshTargetRow | undefined {
  const last = refreshes.at(-1);
  if (!last) return undefined;
  let history: History = { evidence: NO_EVIDENCE, recent: [] };
  let previous: { tick: Date; substance: Substance } | undefined;
  let changedAt: Date | null = null;
  let compared = 0;
  let changes = 0;
  for (const refresh of refreshes) {
    const substance = storedSubstance(dataset, refresh);
    if (previous && refresh.tick > previous.tick) {
      const count = changeCount(previous.substance, substance);
      const seconds = Math.round((refresh.tick.getTime() - previous.tick.getTime()) / 1000);
      history = observe(history, [Math.floor(refresh.tick.getTime() / 1000), seconds, count]);
      compared += 1;
      if (count > 0) [changes, changedAt] = [changes + 1, refresh.tick];
    }
    previous = { tick: refresh.tick, substance };
  }
  return {
    dataset,
    target: last.target,
    lastTick: last.tick,
    substance: null,
    observations: history.recent,
    evidence: history.evidence,
    prices: null,
    changeRatePerHour: estimateChangeRate(history.evidence),
    changedAt,
    compared,
    changes,
  };
}

function storedSubstance(dataset: AddressDataset, refresh: StoredRefresh): Substance {
  if (dataset === 'nfts') {
    return nftSubstance({
      holdings: refresh.entries.map((entry) => ({ collectionId: entry.id, tokenCount: Number(entry.amount) })),
      tokens: [],
    });
  }
  const ids = [...new Set(refresh.entries.map((entry) => entry.id))];
  return positionsSubstance({
    positions: ids.map((positionId) => ({ positionId })),
    amounts: refresh.entries.map((entry, idx) => ({
      positionId: entry.id,
      kind: entry.kind,
      idx,
      token: entry.token,
      tokenSymbol: null,
      amount: entry.amount,
    })),
  });
}

/** Tokens an answer's prices are kept for, at most (a wallet of more is measured by its first ones). */
const MAX_PRICED_TOKENS = 100;

/** The prices an answer carried, by `<chain>:<token>`: the newest of each token. */
export function answerPrices(prices: readonly { chain: string; coinType: string; price: string; priceTime: Date }[]) {
  const newest = new Map<string, { price: number; time: number }>();
  for (const price of prices) {
    const key = `${price.chain}:${price.coinType}`;
    const value = Number(price.price);
    const seen = newest.get(key);
    if (Number.isFinite(value) && value > 0 && (!seen || price.priceTime.getTime() > seen.time))
      newest.set(key, { price: value, time: price.priceTime.getTime() });
  }
  return Object.fromEntries([...newest].slice(0, MAX_PRICED_TOKENS).map(([key, { price }]) => [key, price]));
}
