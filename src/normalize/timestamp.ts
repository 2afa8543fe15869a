import Big from 'big.js';
import type { NumericValue } from '../upstream/schemas.ts';
import { toBig } from './decimal.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';
import { reasonValue } from './reason-value.ts';

/** A Unix time's unit by magnitude: below 1e11 (the year 5138 in s) seconds, then ms, µs, ns. */
const UNITS: { below: number; perMillisecond: number }[] = [
  { below: 1e11, perMillisecond: 1e-3 },
  { below: 1e14, perMillisecond: 1 },
  { below: 1e17, perMillisecond: 1e3 },
  { below: 1e20, perMillisecond: 1e6 },
];
/** Times outside these years are nonsense for prices of tokens that exist. */
const EARLIEST = Date.UTC(1990, 0, 1);
const LATEST = Date.UTC(2200, 0, 1);

/** A Unix time in s, ms, µs or ns as a Date (to the ms); UnreadablePayloadError if it cannot be a price's. */
export function toTimestamp(value: NumericValue): Date {
  const time = toBig(value);
  const magnitude = time.abs().toNumber();
  const unit = UNITS.find((candidate) => magnitude < candidate.below);
  if (time.lte(0) || !unit) throw new UnreadablePayloadError(`timestamp ${reasonValue(value)} is not a Unix time`);
  const milliseconds = time.div(new Big(unit.perMillisecond)).round(0, Big.roundDown).toNumber();
  if (milliseconds < EARLIEST || milliseconds >= LATEST) {
    throw new UnreadablePayloadError(
      `timestamp ${reasonValue(value)} is ${new Date(milliseconds).toISOString()}: not a plausible price time`,
    );
  }
  return new Date(milliseconds);
}
