import Big from 'big.js';
import { sumDecimals } from './decimal.ts';

/**
 * What a position is worth, in USD, by its type: the one place the rule lives (docs/schema.md, "What
 * a wallet is worth"). Pure and exact (decimal strings, never floats).
 * - A Borrow (a type naming "borrow"): its current tokens and yield are debt; its `input` is the
 *   collateral (asset), with the current tokens and yield of each position nested there.
 * - Every other type: its current tokens and yield (and those of positions nested in them), no debt.
 * - net = asset − debt (readers sum top-level positions only: a parent counts its nested ones).
 * - PnL: current + current yield + yield collected − input; null for a Borrow, whose answer holds no
 *   basis for one (input minus current is its net worth, not a profit).
 * A figure is null (unknown) when one of its terms is.
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
export type NestedPosition = Pick<WorthTerms, 'currentValue' | 'currentYieldValue'> & { list: NestedList };

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
