import { describe, expect, it } from 'vitest';
import { simulatedPositions, type JsonObject } from '../../src/simulator/index.ts';

/**
 * Positions a person reading the demo believes: a loan pledges more than it owes with a health
 * factor above 1, and gains and losses stay within what markets do. Checked over many wallets and
 * times, in the default world, the living one (positions held for months) and the real shapes.
 */
const DAY = 86_400_000;
const T = Date.parse('2026-01-01T00:00:00Z');
const addressNo = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
const evmNo = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const WORLDS = { default: {}, living: { habits: true }, 'living, real shapes': { habits: true, realShapes: true } };

type Entry = { amount: number | string; value: number | string | null };
const worth = (list: unknown) => ((list ?? []) as Entry[]).reduce((sum, entry) => sum + Number(entry.value), 0);
const current = (position: JsonObject) => position.current as JsonObject;
const held = (position: JsonObject) => worth(current(position).tokens) + worth(current(position).yield);

function positionsOf(world: object) {
  return Array.from({ length: 120 }, (_, i) => [addressNo(i + 1), evmNo(i + 1)])
    .flat()
    .flatMap((address, i) => simulatedPositions(address, T + i * 1.3 * DAY, undefined, world));
}

describe.each(Object.entries(WORLDS))('positions of the %s world', (_, world) => {
  const positions = positionsOf(world);
  const ofType = (...types: string[]) => positions.filter((position) => types.includes(String(position.type)));

  it('pledge collateral worth more than the debt, with the health factor that says so, above 1', () => {
    const loans = ofType('lending_borrow', 'Borrow');
    expect(loans.length).toBeGreaterThan(30);
    for (const loan of loans) {
      const [pledged] = loan.input as JsonObject[];
      // A real-shapes Borrow nests its collateral as a whole Lending position.
      const collateral = 'current' in pledged! ? held(pledged) : worth(loan.input);
      const debt = held(loan);
      const healthFactor = Number(loan.healthFactor ?? current(loan).healthy);
      expect(collateral).toBeGreaterThan(debt);
      expect(healthFactor).toBeGreaterThan(1);
      if (loan.type === 'lending_borrow') {
        const threshold = Number(loan.liquidationThreshold);
        expect(healthFactor).toBeCloseTo((worth(loan.input) * threshold) / worth(current(loan).tokens), 3);
      }
    }
  });

  it('gain or lose -40 % to +60 % on liquid staking, pools and perps', () => {
    const checked = ofType('liquid_staking', 'liquidity_pool', 'perp', 'CLMM', 'AMM', 'CFMM').filter(
      // The EVM Staking of the real shapes is a liquid staking position.
      (position) => worth(position.input) > 0,
    );
    expect(checked.length).toBeGreaterThan(30);
    for (const position of checked) {
      const input = worth(position.input);
      const pnl = (held(position) + worth(position.yieldCollected) - input) / input;
      // Amounts and values are rounded to 12 significant digits.
      expect(pnl).toBeGreaterThanOrEqual(-0.4 - 1e-9);
      expect(pnl).toBeLessThanOrEqual(0.6 + 1e-9);
    }
  });
});
