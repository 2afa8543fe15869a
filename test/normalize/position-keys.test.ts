import { describe, expect, it } from 'vitest';
import { nestedPositionKey, positionKeys } from '../../src/normalize/position-keys.ts';

const lp = (amount: number | string, tickLower: number, extra: Record<string, unknown> = {}) => ({
  positionId: 'lp',
  chain: 'SUI',
  type: 'CLMM',
  input: [{ amount, value: 99, token: { address: '0x2::sui::SUI' } }],
  poolId: '0xpool',
  tickLower,
  tickUpper: tickLower + 60,
  ...extra,
});

describe('positionKeys', () => {
  it('keeps the upstream id of a position whose id is unique in the answer', () => {
    expect(positionKeys([lp(1, 0), { ...lp(1, 0), positionId: 'other' }])).toEqual(['lp', 'other']);
  });

  it('gives positions sharing an id keys of their own that do not depend on the order of the answer', () => {
    const [a, b, c] = [lp(1, 0), lp(2, 0), lp(1, 60)];
    const keys = positionKeys([a, b, c]);
    expect(new Set(keys).size).toBe(3);
    for (const key of keys) expect(key).toMatch(/^lp#[0-9a-f]{12}$/);
    expect(positionKeys([c, a, b])).toEqual([keys[2], keys[0], keys[1]]);
  });

  it('reads what stays the same: values, prices and spellings of an amount move the key nowhere', () => {
    const [a, b] = positionKeys([lp(1, 0), lp(2, 0)]);
    const moved = {
      ...lp('1.0', 0, { inRange: false, liquidity: '5' }),
      input: [{ amount: { value: 1 }, value: 7, token: '0x2::sui::SUI' }],
    };
    expect(positionKeys([lp(2, 0), moved])).toEqual([b, a]);
  });

  it('tells apart positions equal in everything that stays the same by order, after the others', () => {
    const keys = positionKeys([lp(1, 0), lp(1, 0), lp(2, 0)]);
    expect(keys[1]).toBe(`${keys[0]}-2`);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('gives no key to an element without an identity (it is quarantined)', () => {
    expect(positionKeys([{ chain: 'SUI' }, 'not a position', lp(1, 0)])).toEqual([null, null, 'lp']);
  });

  it('names a nested position by its parent and its place', () => {
    expect(nestedPositionKey('0xborrow', 'input', 0)).toBe('0xborrow/input/0');
  });
});
