import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeNftHoldings, normalizePositions } from '../../src/normalize/index.ts';
import { changeCount, nftSubstance, positionsSubstance } from '../../src/refresh/substance.ts';
import { nftHoldingsResponse, positionsResponse } from '../../src/upstream/schemas.ts';

const TICK = new Date('2026-11-21T12:00:00Z');
const read = (path: string) => JSON.parse(readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8'));
const substanceOf = (body: unknown) =>
  positionsSubstance(
    normalizePositions(positionsResponse.parse(body), { owner: '0xowner', snapshotAt: TICK, fetchedAt: TICK }),
  );
type Json = Record<string, unknown>;
/** The answer with every object in it passed through `edit` (depth first). */
function edited(body: unknown, edit: (object: Json) => void): unknown {
  const copy = structuredClone(body);
  const walk = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== 'object' || value === null) return;
    Object.values(value).forEach(walk);
    edit(value as Json);
  };
  walk(copy);
  return copy;
}
/** Scales a field written as a number or a numeric string (real answers use both). */
const scale = (object: Json, field: string, factor: number) => {
  const value = object[field];
  if (typeof value === 'number') object[field] = value * factor;
  else if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    object[field] = String(Number(value) * factor);
};

describe('what counts as a change', () => {
  const answers = [
    'normalize/positions-real-answer/response.json',
    'normalize/positions-real-answer-nested-borrow/response.json',
    'normalize/positions-liquidity-pool/response.json',
    'real-answers/positions-all-types.json',
  ];

  it.each(answers)('prices and values moving, amounts fixed: no change (%s)', (path) => {
    const body = read(path);
    const moved = edited(body, (object) => {
      scale(object, 'price', 1.3);
      scale(object, 'value', 1.3);
      scale(object, 'usdValue', 1.3);
    });
    expect(changeCount(substanceOf(body), substanceOf(moved))).toBe(0);
  });

  it.each(answers)('a position closed, opened or resized by more than 2 %: a change (%s)', (path) => {
    const body = read(path) as { data: Json[] } | Json[];
    const list = (answer: unknown) => (Array.isArray(answer) ? answer : (answer as { data: Json[] }).data) as Json[];
    const before = substanceOf(body);
    // A position the answer stores (an element quarantined alone is not one).
    const stored = list(body).findIndex((element) => String(element.positionId) in before.positions);
    expect(stored).toBeGreaterThanOrEqual(0);
    const withElement = (change: (elements: Json[]) => void) => {
      const copy = structuredClone(body);
      change(list(copy));
      return substanceOf(copy);
    };
    expect(
      changeCount(
        before,
        withElement((elements) => elements.splice(stored, 1)),
      ),
      // An element may hold nested positions: each one gone counts.
    ).toBeGreaterThanOrEqual(1);
    const opened = withElement((elements) => elements.push({ ...elements[stored]!, positionId: '0xfeedfeed' }));
    expect(changeCount(before, opened)).toBeGreaterThanOrEqual(1);
    const resize = (factor: number) =>
      withElement((elements) => {
        elements[stored] = edited(elements[stored], (object) => scale(object, 'amount', factor)) as Json;
      });
    expect(changeCount(before, resize(1.1))).toBeGreaterThanOrEqual(1);
    expect(changeCount(before, resize(1.005))).toBe(0);
  });

  it("a pool's price swinging its current amounts along x·y = L² is no change; a deposit is", () => {
    const pool = (sui: number, usdc: number) => ({
      data: [
        {
          positionId: '0xpool',
          chain: 'sui',
          type: 'liquidity_pool',
          current: {
            tokens: [
              { amount: sui, value: sui * 3, token: '0x2::sui::SUI' },
              {
                amount: usdc,
                value: usdc,
                token: '0x5d4b302506645c37ff133b98c4b50a5ae14841659738d6d733d59d0d217a93bf::coin::COIN',
              },
            ],
          },
        },
      ],
    });
    const before = substanceOf(pool(1000, 3000));
    // The price of SUI up 21 %: the pool sells SUI, its amounts move by 10 % each, L stays.
    expect(changeCount(before, substanceOf(pool(1000 / 1.1, 3000 * 1.1)))).toBe(0);
    expect(changeCount(before, substanceOf(pool(1100, 3300)))).toBe(1);
  });

  it('counts the fewest events that explain the difference: a burst shows as several changes', () => {
    const position = (id: string, amount: number) => ({
      positionId: id,
      chain: 'sui',
      type: 'staking',
      current: { tokens: [{ amount, value: amount * 3, token: '0x2::sui::SUI' }] },
    });
    const before = substanceOf({ data: [position('0xa', 10), position('0xb', 20), position('0xc', 30)] });
    // 0xa went and 0xd appeared: one move at least.
    expect(
      changeCount(before, substanceOf({ data: [position('0xd', 10), position('0xb', 20), position('0xc', 30)] })),
    ).toBe(1);
    // 0xa closed, 0xd and 0xe opened, 0xb resized: three at least (the closing may be one opening's move).
    const burst = substanceOf({
      data: [position('0xb', 25), position('0xc', 30), position('0xd', 1), position('0xe', 2)],
    });
    expect(changeCount(before, burst)).toBe(3);
    expect(changeCount(burst, burst)).toBe(0);
  });

  it('NFT holdings: a count or a token id moving is a change, prices are not', () => {
    const body = read('real-answers/nfts-data-wrapped.json');
    const substance = (answer: unknown) =>
      nftSubstance(
        normalizeNftHoldings(nftHoldingsResponse.parse(answer), {
          owner: '0xowner',
          snapshotAt: TICK,
          fetchedAt: TICK,
        }),
      );
    const before = substance(body);
    expect(Object.keys(before.collections).length).toBeGreaterThan(0);
    const repriced = edited(body, (object) => {
      scale(object, 'marketPrice', 2);
      scale(object, 'floorPrice', 2);
    });
    expect(changeCount(before, substance(repriced))).toBe(0);
    const fewer = structuredClone(body) as { data: { list?: unknown[] } | unknown[] };
    const groups = (Array.isArray(fewer.data) ? fewer.data : (fewer.data as { list: unknown[] }).list) as unknown[];
    groups.pop();
    expect(changeCount(before, substance(fewer))).toBe(1);
  });
});
