import type { SchemaDrift } from '../db/schema/rows.ts';

/** The JSON type of a value as a drift shape: string, number, boolean, array, object or null. */
export function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The drifts of one answer, counted by (field, shape): the normalizer fills it, the worker stores it. */
export class DriftLog {
  private readonly counts = new Map<string, SchemaDrift>();

  record(field: string, shape: string, count = 1): void {
    const key = `${field}\u0000${shape}`;
    const known = this.counts.get(key);
    if (known) known.count += count;
    else this.counts.set(key, { field, shape, count });
  }

  add(other: DriftLog): void {
    for (const { field, shape, count } of other.counts.values()) this.record(field, shape, count);
  }

  /** Sorted by field, then shape (the order the worker upserts them in). */
  list(): SchemaDrift[] {
    return [...this.counts.values()].sort((a, b) => a.field.localeCompare(b.field) || a.shape.localeCompare(b.shape));
  }
}
