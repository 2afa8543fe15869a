import { describe, expect, it } from 'vitest';
import {
  simulatedNftHoldings,
  simulatedPositions,
  walletHabit,
  worldChanges,
  type HabitName,
  type JsonObject,
} from '../../src/simulator/index.ts';
import { nftHoldingsResponse, positionsResponse } from '../../src/upstream/schemas.ts';

const DAY = 86_400_000;
const T = Date.parse('2026-03-01T00:00:00Z');
const LIVING = { habits: true };
const addressNo = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
const evmNo = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;

function walletsOf(habit: HabitName, n: number, spell = addressNo): string[] {
  const found: string[] = [];
  for (let i = 1; found.length < n; i++) if (walletHabit(spell(i)).habit === habit) found.push(spell(i));
  return found;
}
const WALLETS = (['hourly', 'bursty', 'daily', 'dormant'] as const).flatMap((habit) => [
  ...walletsOf(habit, 2),
  ...walletsOf(habit, 1, evmNo),
]);

type Entry = { amount: number | string };
const amounts = (list: unknown) => ((list ?? []) as Entry[]).map((entry) => Number(entry.amount));
/** Pool and perp amounts follow prices; every other amount moves only at a change. */
const followsPrices = (position: JsonObject) => position.type === 'liquidity_pool' || position.type === 'perp';

/** What a change may alter and a price move may not: which positions, and their amounts. */
function positionsSubstance(at: number, address: string) {
  return simulatedPositions(address, at, undefined, LIVING).map((position) => ({
    id: position.positionId,
    input: amounts(position.input),
    current: followsPrices(position) ? [] : amounts((position.current as JsonObject).tokens),
  }));
}
function nftSubstance(at: number, address: string) {
  return simulatedNftHoldings(address, at, undefined, LIVING).map((group) => ({
    collection: group.collectionId,
    tokens: (group.tokens as JsonObject[]).map((token) => token.tokenId),
  }));
}
const SUBSTANCE = { positions: positionsSubstance, nfts: nftSubstance };

describe('the living world (world.habits)', () => {
  it('changes every answer at each recorded change, and in between only values move', () => {
    let changes = 0;
    for (const address of WALLETS) {
      for (const dataset of ['positions', 'nfts'] as const) {
        const substance = SUBSTANCE[dataset];
        const times = worldChanges(address, dataset, T, T + 20 * DAY).slice(0, 12);
        changes += times.length;
        for (const time of times) expect(substance(time, address)).not.toEqual(substance(time - 1, address));
        const bounds = [T, ...times, times.length < 12 ? T + 20 * DAY : times.at(-1)!];
        for (let i = 1; i < bounds.length; i++) {
          if (bounds[i]! - bounds[i - 1]! < 2) continue;
          expect(substance(bounds[i]! - 1, address)).toEqual(substance(bounds[i - 1]!, address));
        }
      }
    }
    expect(changes).toBeGreaterThan(100);
  });

  it('opens, closes or resizes at a change: a resize moves every amount of a position by a fifth or more', () => {
    let resizes = 0;
    for (const address of walletsOf('hourly', 2)) {
      for (const time of worldChanges(address, 'positions', T, T + 3 * DAY)) {
        const before = positionsSubstance(time - 1, address);
        const after = positionsSubstance(time, address);
        const ids = (list: typeof before) => list.map((position) => position.id);
        if (JSON.stringify(ids(before)) !== JSON.stringify(ids(after))) continue;
        const moved = after.filter((position, i) => JSON.stringify(position) !== JSON.stringify(before[i]));
        expect(moved).toHaveLength(1);
        const old = before[after.indexOf(moved[0]!)]!;
        const ratios = moved[0]!.input.map((amount, k) => amount / old.input[k]!);
        expect(ratios.every((ratio) => ratio <= 0.8 || ratio >= 1.2)).toBe(true);
        resizes++;
      }
    }
    expect(resizes).toBeGreaterThan(10);
  });

  it('answers the wire schemas with some slots empty and token counts that vary', () => {
    const sizes = new Set<number>();
    const counts = new Set<number>();
    for (let i = 1; i <= 60; i++) {
      const time = T + i * 5 * DAY;
      const positions = simulatedPositions(addressNo(i), time, undefined, LIVING);
      const nfts = simulatedNftHoldings(addressNo(i), time, undefined, LIVING, { includePnl: true });
      expect(positionsResponse.safeParse({ data: positions }).success).toBe(true);
      expect(nftHoldingsResponse.safeParse(nfts).success).toBe(true);
      sizes.add(positions.length);
      for (const group of nfts) counts.add((group.tokens as unknown[]).length);
    }
    expect(Math.min(...sizes)).toBeLessThan(10);
    expect(Math.max(...sizes)).toBe(10);
    expect(counts.size).toBeGreaterThan(2);
  });
});
