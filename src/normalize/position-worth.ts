import Big from 'big.js';
import { sumDecimals } from './decimal.ts';

/**
 * What a position is worth, in USD, by its type: the one place the rule lives (docs/schema.md, "What
 * a wallet is worth"; upstream-reality.md, "What a position is worth"). Pure and exact (decimal
 * strings, never floats).
 *
 * - A Borrow (a type naming "borrow": `Borrow`, `lending_borrow`, …): its `current.tokens` and
 *   `current.yield` are what the wallet owes (debt); its collateral is its `input` (asset): the
 *   values of its amount entries plus, for each whole position nested there, that position's
 *   current tokens and yield.
 * - Every other type: its current tokens and yield (asset, plus those of positions nested in them),
 *   no debt.
 * - net = asset − debt. A nested position also has its own worth (its parent counts it once:
 *   readers sum top-level positions only).
 * - PnL: current + current yield + yield collected − input, for every type but a Borrow, whose
 *   answer holds no basis for one (its input is collateral, its current the debt: their difference
 *   is its net worth, not a profit): null.
 *
 * A figure is null (unknown) when one of its terms is: an entry without a value, or no `current`.
 */
export interface WorthTerms {
  type: string;
  inputValue: string | null;
  yieldCollectedValue: string | null;
  currentValue: string | null;
  currentYieldValue: string | null;
}

/** The amount list a position is nested in (its parent's `input`, `current.tokens`, …). */
export type NestedList = 'input' | 'yieldCollected' | 'current.tokens' | 'current.yield';

/** A position nested in an amount list of the one being valued. */
export interface NestedPosition {
  list: NestedList;
  currentValue: string | null;
  currentYieldValue: string | null;
}

/** Whether a position type is a loan, whose current amounts are debt. */
export function isDebtPosition(type: string): boolean {
  return /borrow/i.test(type);
}

export function positionWorth(position: WorthTerms, nested: readonly NestedPosition[] = []) {
  const held = (lists: NestedList[]) =>
    nested
      .filter((child) => lists.includes(child.list))
      .flatMap((child) => [child.currentValue, child.currentYieldValue]);
  const current = [position.currentValue, position.currentYieldValue, ...held(['current.tokens', 'current.yield'])];
  if (isDebtPosition(position.type)) {
    const assetValue = sumDecimals([position.inputValue, ...held(['input'])]);
    const debtValue = sumDecimals(current);
    return { assetValue, debtValue, netValue: difference(assetValue, debtValue), pnl: null };
  }
  const assetValue = sumDecimals(current);
  const gained = sumDecimals([position.currentValue, position.currentYieldValue, position.yieldCollectedValue]);
  return {
    assetValue,
    debtValue: '0',
    netValue: assetValue,
    pnl: difference(gained, position.inputValue),
  };
}

function difference(a: string | null, b: string | null): string | null {
  return a === null || b === null ? null : new Big(a).minus(b).toFixed();
}
