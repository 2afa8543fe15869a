import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import {
  walletHabit,
  worldChanges,
  WORLD_ORIGIN_MS,
  type HabitName,
  type WorldDataset,
} from '../../src/simulator/index.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T = Date.parse('2026-03-01T00:00:00Z');
const addressNo = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;

/** The first n addresses (0x…01, 0x…02, …) of a habit. */
function walletsOf(habit: HabitName, n: number): string[] {
  const found: string[] = [];
  for (let i = 1; found.length < n; i++) if (walletHabit(addressNo(i)).habit === habit) found.push(addressNo(i));
  return found;
}

describe('worldChanges', () => {
  it('gives the changes in (from, to], ascending and distinct; two ranges that meet give their union', () => {
    for (const address of [...walletsOf('hourly', 3), ...walletsOf('bursty', 3)]) {
      for (const dataset of ['positions', 'nfts'] as WorldDataset[]) {
        const whole = worldChanges(address, dataset, T, T + 60 * DAY);
        const middle = T + 17 * DAY + 12_345;
        const parts = [
          ...worldChanges(address, dataset, T, middle),
          ...worldChanges(address, dataset, middle, T + 60 * DAY),
        ];
        expect(parts).toEqual(whole);
        expect(whole.every((time, i) => time > T && time <= T + 60 * DAY && (i === 0 || time > whole[i - 1]!))).toBe(
          true,
        );
        if (whole.length > 0) {
          const first = whole[0]!;
          expect(worldChanges(address, dataset, first - 1, first)).toEqual([first]);
          expect(worldChanges(address, dataset, first, first + 1).includes(first)).toBe(false);
        }
      }
    }
  });

  it('changes a Poisson wallet at its mean rate, with exponential gaps; its NFTs five times less often', () => {
    const wallets = walletsOf('daily', 60);
    let expected = 0;
    const gaps: number[] = [];
    let nfts = 0;
    for (const address of wallets) {
      const { meanIntervalMs } = walletHabit(address).positions;
      const changes = worldChanges(address, 'positions', T, T + 120 * DAY);
      expected += (120 * DAY) / meanIntervalMs;
      for (let i = 1; i < changes.length; i++) gaps.push((changes[i]! - changes[i - 1]!) / meanIntervalMs);
      nfts += worldChanges(address, 'nfts', T, T + 120 * DAY).length;
    }
    const observed = gaps.length + wallets.length;
    // About 5,000 changes: a Poisson count is within 3 % of its mean (2 standard deviations here).
    expect(Math.abs(observed / expected - 1)).toBeLessThan(0.03);
    // P(gap < mean) = 1 - 1/e for exponential gaps.
    const short = gaps.filter((gap) => gap < 1).length / gaps.length;
    expect(Math.abs(short - (1 - Math.exp(-1)))).toBeLessThan(0.03);
    expect(Math.abs(nfts / (expected / 5) - 1)).toBeLessThan(0.1);
  });

  it('changes a bursty wallet in bursts of 3 to 8 within an hour, 2 to 10 days apart', () => {
    for (const address of walletsOf('bursty', 10)) {
      const changes = worldChanges(address, 'positions', T, T + 90 * DAY);
      const bursts: number[][] = [];
      for (const time of changes) {
        const last = bursts.at(-1);
        if (last && time - last[0]! < HOUR) last.push(time);
        else bursts.push([time]);
      }
      // The first and last bursts may be cut by the range.
      for (const burst of bursts.slice(1, -1)) expect(burst.length).toBeGreaterThanOrEqual(3);
      for (const burst of bursts) expect(burst.length).toBeLessThanOrEqual(8);
      for (let i = 1; i < bursts.length; i++) {
        const apart = bursts[i]![0]! - bursts[i - 1]![0]!;
        expect(apart).toBeGreaterThanOrEqual(2 * DAY - HOUR);
        expect(apart).toBeLessThanOrEqual(10 * DAY + HOUR);
      }
    }
  });

  it('is empty for datasets a wallet holds nothing of, and before the origin', () => {
    const solana = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
    const ton = 'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q2';
    expect(worldChanges(solana, 'positions', T, T + 365 * DAY)).toEqual([]);
    expect(worldChanges(ton, 'nfts', T, T + 365 * DAY)).toEqual([]);
    expect(worldChanges(solana, 'nfts', T, T + 365 * DAY).length).toBeGreaterThan(0);
    const [hourly] = walletsOf('hourly', 1);
    expect(worldChanges(hourly!, 'positions', WORLD_ORIGIN_MS - 30 * DAY, WORLD_ORIGIN_MS)).toEqual([]);
    expect(worldChanges(hourly!, 'positions', T, T, 'chaintap', { positionsPerAddress: 0 })).toEqual([]);
    expect(worldChanges(hourly!, 'positions', T, T + 10 * DAY, 'chaintap', { positionsPerAddress: 0 })).toEqual([]);
  });

  it('rejects an unknown dataset, a reversed range and a bad address', () => {
    const [address] = walletsOf('daily', 1);
    expect(() => worldChanges(address!, 'prices' as WorldDataset, T, T + DAY)).toThrow(InvalidInputError);
    expect(() => worldChanges(address!, 'positions', T + DAY, T)).toThrow(InvalidInputError);
    expect(() => worldChanges(address!, 'positions', T + 0.5, T + DAY)).toThrow(InvalidInputError);
    expect(() => worldChanges('0x12', 'positions', T, T + DAY)).toThrow(InvalidInputError);
  });
});
