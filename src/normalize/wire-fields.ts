import type { z } from 'zod';
import type { NumericField } from './numeric-field.ts';
import { shapeOf, type DriftLog } from './schema-drift.ts';

/** A documented string: any other shape is null, recorded as drift and returned as `unread`. */
export function readText(raw: unknown, field: string, drifts: DriftLog): NumericField<string> {
  if (raw === null || raw === undefined) return { value: null };
  if (typeof raw === 'string') return { value: raw };
  drifts.record(field, shapeOf(raw));
  return { value: null, unread: raw };
}

/** A documented object read with `schema`: one that does not fit is null, recorded as drift and returned as `unread`. */
export function readShaped<T>(raw: unknown, schema: z.ZodType<T>, field: string, drifts: DriftLog): NumericField<T> {
  if (raw === null || raw === undefined) return { value: null };
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { value: parsed.data };
  drifts.record(field, shapeOf(raw));
  return { value: null, unread: raw };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects the values that could not be mapped, by field name, for an `extra` jsonb. */
export class UnreadFields {
  readonly fields: Record<string, unknown> = {};

  /** Returns the field's value, keeping `unread` under `name` when there is one. */
  keep<T>(name: string, field: NumericField<T>): T | null {
    if ('unread' in field) this.fields[name] = field.unread;
    return field.value;
  }

  set(name: string, value: unknown): void {
    this.fields[name] = value;
  }
}
