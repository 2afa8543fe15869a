import type { Database } from '../client.ts';
import { runSql } from '../query.ts';
import type { SchemaDrift } from '../schema/rows.ts';

/**
 * Records that fields of `dataset` came in another shape at `tick`: schema_drifts keeps, per
 * (dataset, field, shape), the first and the newest tick seen and how many newer ticks brought it.
 * Ticks, not clock times, so that writing a tick again changes nothing. A statement of its own after
 * the job's commit, not part of it: every job of a dataset would otherwise hold the same rows locked
 * until it commits. A row the tick does not move is left alone.
 */
export async function recordSchemaDrifts(
  database: Database,
  dataset: string,
  tick: Date,
  drifts: readonly SchemaDrift[],
): Promise<void> {
  if (drifts.length === 0) return;
  // In key order, so that concurrent jobs lock the rows they share in the same order.
  const sorted = [...drifts].sort((a, b) => driftKey(a).localeCompare(driftKey(b)));
  await runSql(database, 'schema_drifts.record')`
      insert into schema_drifts as d (dataset, field, shape, first_seen_at, last_seen_at, count)
      select ${dataset}, field, shape, ${tick}::timestamptz, ${tick}::timestamptz, 1
      from unnest(${sorted.map((d) => d.field)}::text[], ${sorted.map((d) => d.shape)}::text[]) as t(field, shape)
      on conflict (dataset, field, shape) do update
        set first_seen_at = least(d.first_seen_at, excluded.first_seen_at),
            last_seen_at = greatest(d.last_seen_at, excluded.last_seen_at),
            count = d.count + (excluded.last_seen_at > d.last_seen_at)::int
        where excluded.last_seen_at > d.last_seen_at or excluded.first_seen_at < d.first_seen_at`;
}

function driftKey(drift: SchemaDrift): string {
  return `${drift.field}\u0000${drift.shape}`;
}
