import Big from 'big.js';
import type { NumericValue } from '../upstream/schemas.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';
import { reasonValue } from './reason-value.ts';

/** Beyond this many digits a number is not a price or an amount (Postgres numeric holds more). */
const MAX_EXPONENT = 1000;

/**
 * The exact decimal spelling of a wire number for a Postgres numeric (a JSON number through
 * String(n), a string as written, exponents spelled out), so nothing rounds on the way.
 */
export function toDecimalString(value: NumericValue | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return toBig(value).toFixed();
}

export function toBig(value: NumericValue): Big {
  const spelled = typeof value === 'number' ? String(value) : value.trim().replace(/^\+/, '');
  let big: Big;
  try {
    big = new Big(spelled);
  } catch {
    throw new UnreadablePayloadError(`"${reasonValue(spelled)}" is not a decimal number`);
  }
  if (big.e > MAX_EXPONENT || big.e < -MAX_EXPONENT) {
    throw new UnreadablePayloadError(`"${reasonValue(spelled)}" is out of range for an amount or a price`);
  }
  return big;
}

/** Exact sum of decimal strings: "0" for none, null when any is null (unknown, never silently smaller). */
export function sumDecimals(values: (string | null)[]): string | null {
  let total = new Big(0);
  for (const value of values) {
    if (value === null) return null;
    total = total.plus(value);
  }
  return total.toFixed();
}
