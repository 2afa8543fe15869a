import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { normalizePositions } from '../../src/normalize/index.ts';
import { isDebtPosition, positionWorth } from '../../src/normalize/position-worth.ts';
import { positionsResponse } from '../../src/upstream/schemas.ts';
import { FIXTURE_CONTEXT } from './fixture-cases.ts';

/**
 * Golden fixtures of what a position is worth (test/fixtures/position-worth/<case>/): an answer of
 * each shape upstream-reality.md describes, and the asset, debt and net value, PnL and health
 * factor of each position, worked out by hand to the last digit, and the wallet's net worth (its
 * top-level positions summed, as latest_portfolio sums them).
 */
const FIXTURES = fileURLToPath(new URL('../fixtures/position-worth', import.meta.url));
const read = (name: string, file: string) => JSON.parse(readFileSync(join(FIXTURES, name, file), 'utf8'));

describe('what a position is worth', () => {
  const cases = readdirSync(FIXTURES).sort();

  it('has a fixture for each shape of upstream-reality.md', () => {
    expect(cases).toEqual(['borrow-nested-lending', 'clmm', 'lending-with-yield', 'plain-borrow', 'staking', 'vest']);
  });

  it.each(cases)('%s: asset, debt, net, PnL and health factor exact to the last digit', (name) => {
    const { about: _, ...expected } = read(name, 'expected.json');
    const rows = normalizePositions(positionsResponse.parse(read(name, 'response.json')), FIXTURE_CONTEXT);
    const typeOf = new Map(rows.positions.map((position) => [position.positionId, position.type]));
    const topLevel = new Set(rows.positions.filter((p) => p.parentPositionId === null).map((p) => p.positionId));
    const positions = rows.snapshots.map((snapshot) => ({
      positionId: snapshot.positionId,
      type: typeOf.get(snapshot.positionId),
      assetValue: snapshot.assetValue,
      debtValue: snapshot.debtValue,
      netValue: snapshot.netValue,
      pnl: snapshot.pnl,
      healthFactor: snapshot.healthFactor,
    }));
    const walletNetValue = rows.snapshots
      .filter((snapshot) => topLevel.has(snapshot.positionId) && snapshot.netValue !== null)
      .reduce((sum, snapshot) => sum.plus(snapshot.netValue!), new Big(0))
      .toFixed();
    expect({ positions, walletNetValue }).toEqual(expected);
  });

  it('knows a loan by its type, whatever its spelling', () => {
    expect(['Borrow', 'borrow', 'BORROW', 'lending_borrow', 'LendingBorrow'].map(isDebtPosition)).toEqual(
      Array(5).fill(true),
    );
    expect(['Lending', 'CLMM', 'Staking', 'Vest', 'Farm', 'Reward', 'AMM', 'CFMM'].map(isDebtPosition)).toEqual(
      Array(8).fill(false),
    );
  });

  it('never counts debt as wealth: deposit 10,000, borrow 8,000, worth 2,000', () => {
    const loan = { inputValue: '10000', yieldCollectedValue: '0', currentValue: '8000', currentYieldValue: '0' };
    expect(positionWorth({ type: 'Borrow', ...loan })).toEqual({
      assetValue: '10000',
      debtValue: '8000',
      netValue: '2000',
      pnl: null,
    });
  });

  it('gives null, never a smaller figure, when a term is unknown', () => {
    const terms = { inputValue: '1', yieldCollectedValue: '0', currentValue: '2', currentYieldValue: '0' };
    expect(positionWorth({ type: 'Borrow', ...terms, inputValue: null })).toMatchObject({
      assetValue: null,
      netValue: null,
    });
    expect(
      positionWorth({ type: 'Borrow', ...terms }, [{ list: 'input', currentValue: null, currentYieldValue: '1' }]),
    ).toMatchObject({
      assetValue: null,
      debtValue: '2',
      netValue: null,
    });
    expect(positionWorth({ type: 'Lending', ...terms, currentYieldValue: null })).toEqual({
      assetValue: null,
      debtValue: '0',
      netValue: null,
      pnl: null,
    });
    // A position nested in current tokens is part of what its parent holds (or, for a loan, owes).
    const nested = [{ list: 'current.tokens' as const, currentValue: '5', currentYieldValue: '0.5' }];
    expect(positionWorth({ type: 'Farm', ...terms }, nested)).toMatchObject({ assetValue: '7.5', pnl: '1' });
    expect(positionWorth({ type: 'Borrow', ...terms }, nested)).toMatchObject({ assetValue: '1', debtValue: '7.5' });
  });
});
