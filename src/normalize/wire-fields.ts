import type { z } from 'zod';
import { toDecimalString } from './decimal.ts';
import { shapeOf, type DriftLog } from './schema-drift.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';

const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
const INTEGER = /^\s*[+-]?\d+\s*$/;

/** A field as read: its value (null when absent or unreadable) and, when unreadable, the value as received. */
export interface WireField<T> {
  value: T | null;
  /** Set when the field held something of another shape: keep it in `extra`. */
  unread?: unknown;
}

/**
 * A documented number as an exact decimal string. Also read, and recorded as drift: a numeric
 * string (kept exact, however long) and an object `{ value }` (nested ones too). Any other shape
 * gives null and is recorded as drift with its JSON type; the caller keeps it in `extra`.
 */
export function readDecimal(raw: unknown, field: string, drifts: DriftLog): WireField<string> {
  return readNumber(raw, field, drifts, DECIMAL, (text) => toDecimalString(text));
}

/** Like readDecimal, for a documented integer (decimals, totalItems): a non-integer is unread. */
export function readInteger(raw: unknown, field: string, drifts: DriftLog): WireField<number> {
  return readNumber(raw, field, drifts, INTEGER, (text) => {
    const number = Number(text);
    return Number.isSafeInteger(number) ? number : null;
  });
}

/**
 * A field the document does not name (such as `current.healthy`) read as readDecimal reads a
 * documented one; null for any other shape, which is no drift (the field stays in `extra`).
 */
export function undocumentedDecimal(raw: unknown): string | null {
  return readAs(raw, DECIMAL, (text) => toDecimalString(text));
}

function readAs<T>(value: unknown, pattern: RegExp, parse: (text: string) => T | null): T | null {
  if (typeof value === 'number') return Number.isFinite(value) ? tryParse(String(value), parse) : null;
  if (typeof value === 'string') return pattern.test(value) ? tryParse(value.trim(), parse) : null;
  // Only a lone `value` is a wrapper: any other field beside it would be lost.
  if (isPlainObject(value) && Object.keys(value).join() === 'value') return readAs(value.value, pattern, parse);
  return null;
}

function readNumber<T>(
  raw: unknown,
  field: string,
  drifts: DriftLog,
  pattern: RegExp,
  parse: (text: string) => T | null,
): WireField<T> {
  if (raw === null || raw === undefined) return { value: null };
  const value = readAs(raw, pattern, parse);
  if (value === null) return unread(raw, field, drifts);
  if (typeof raw === 'string') drifts.record(field, 'numeric_string');
  else if (typeof raw === 'object') drifts.record(field, 'value_object');
  return { value };
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

/** A documented string: any other shape is null, recorded as drift and returned as `unread`. */
export function readText(raw: unknown, field: string, drifts: DriftLog): WireField<string> {
  if (raw === null || raw === undefined) return { value: null };
  return typeof raw === 'string' ? { value: raw } : unread(raw, field, drifts);
}

/** A documented object read with `schema`: one that does not fit is null, drift, and returned as `unread`. */
export function readShaped<T>(raw: unknown, schema: z.ZodType<T>, field: string, drifts: DriftLog): WireField<T> {
  if (raw === null || raw === undefined) return { value: null };
  const parsed = schema.safeParse(raw);
  return parsed.success ? { value: parsed.data } : unread(raw, field, drifts);
}

function unread(raw: unknown, field: string, drifts: DriftLog): WireField<never> {
  drifts.record(field, shapeOf(raw));
  return { value: null, unread: raw };
}

/** An identifier that may come as a number, as text; null for null/undefined/empty. */
export function toText(value: string | number | null | undefined): string | null {
  return value === null || value === undefined || value === '' ? null : String(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects the values that could not be mapped, by field name, for an `extra` jsonb. */
export class UnreadFields {
  readonly fields: Record<string, unknown> = {};

  /** Returns the field's value, keeping `unread` under `name` when there is one. */
  keep<T>(name: string, field: WireField<T>): T | null {
    if ('unread' in field) this.fields[name] = field.unread;
    return field.value;
  }
}

/** The fields of a wire object that no column maps, for an `extra` jsonb; null when there are none. */
export function extraFields(
  source: object | null | undefined,
  known: readonly string[],
): Record<string, unknown> | null {
  const extra = Object.entries(source ?? {}).filter(([key, value]) => value !== undefined && !known.includes(key));
  return extra.length > 0 ? Object.fromEntries(extra) : null;
}

/** Merges the named parts into one `extra` object, leaving out the empty ones; null when all are. */
export function mergeExtra(
  parts: Record<string, Record<string, unknown> | null | undefined>,
  base: Record<string, unknown> | null = null,
): Record<string, unknown> | null {
  const merged: Record<string, unknown> = { ...base };
  for (const [name, part] of Object.entries(parts)) {
    if (part && Object.keys(part).length > 0) merged[name] = part;
  }
  return Object.keys(merged).length > 0 ? merged : null;
}
