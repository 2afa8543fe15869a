import { toDecimalString } from './decimal.ts';
import type { DriftLog } from './schema-drift.ts';
import { shapeOf } from './schema-drift.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';

const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
const INTEGER = /^\s*[+-]?\d+\s*$/;

/** A numeric field as read: its value (null when absent or unreadable) and, when unreadable, the value as received. */
export interface NumericField<T> {
  value: T | null;
  /** Set when the field held something that is not a number: keep it in `extra`. */
  unread?: unknown;
}

/**
 * A documented number as an exact decimal string. Also read, and recorded as drift: a numeric
 * string (kept exact, however long) and an object `{ value }` (nested ones too). Any other shape
 * gives null and is recorded as drift with its JSON type; the caller keeps it in `extra`.
 */
export function readDecimal(raw: unknown, field: string, drifts: DriftLog): NumericField<string> {
  return readNumber(raw, field, drifts, DECIMAL, (text) => toDecimalString(text));
}

/** Like readDecimal, for a documented integer (decimals, totalItems): a non-integer is unread. */
export function readInteger(raw: unknown, field: string, drifts: DriftLog): NumericField<number> {
  return readNumber(raw, field, drifts, INTEGER, (text) => {
    const number = Number(text);
    return Number.isSafeInteger(number) ? number : null;
  });
}

/**
 * A field the document does not name (such as `current.healthy`) as an exact decimal string, read
 * as readDecimal reads a documented one; null for any other shape, which is no drift (the field stays
 * in `extra` as received).
 */
export function undocumentedDecimal(raw: unknown): string | null {
  return readAs(raw, DECIMAL, (text) => toDecimalString(text));
}

function readAs<T>(value: unknown, pattern: RegExp, parse: (text: string) => T | null): T | null {
  if (typeof value === 'number') return Number.isFinite(value) ? tryParse(String(value), parse) : null;
  if (typeof value === 'string') return pattern.test(value) ? tryParse(value.trim(), parse) : null;
  if (isValueObject(value)) return readAs(value.value, pattern, parse);
  return null;
}

function readNumber<T>(
  raw: unknown,
  field: string,
  drifts: DriftLog,
  pattern: RegExp,
  parse: (text: string) => T | null,
): NumericField<T> {
  if (raw === null || raw === undefined) return { value: null };
  const value = readAs(raw, pattern, parse);
  if (value === null) {
    drifts.record(field, shapeOf(raw));
    return { value: null, unread: raw };
  }
  if (typeof raw === 'string') drifts.record(field, 'numeric_string');
  else if (typeof raw === 'object') drifts.record(field, 'value_object');
  return { value };
}

/** Only a lone `value` is a wrapper: any other field beside it would be lost, so such an object is unread. */
function isValueObject(value: unknown): value is { value: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).join() === 'value';
}

/** A spelling the pattern accepts may still be out of range (1e100000): unread, not fatal. */
function tryParse<T>(text: string, parse: (text: string) => T | null): T | null {
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof UnreadablePayloadError) return null;
    throw error;
  }
}
