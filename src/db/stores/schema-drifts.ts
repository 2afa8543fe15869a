import type { Database } from '../client.ts';
import { runSql } from '../query.ts';
import type { SchemaDrift } from '../schema/rows.ts';
import { lastByKey } from './upsert.ts';

/**
 * Records fields of `dataset` seen in another shape at `tick` (ticks, so that a tick written again
 * changes nothing). After the job's commit: inside it, every job of a dataset would hold these rows.
 */
export async function recordSchemaDrifts(
  database: Database,
  dataset: string,
  tick: Date,
  drifts: readonly SchemaDrift[],
): Promise<void> {
  if (drifts.length === 0) return;
  const sorted = lastByKey([...drifts], (drift) => `${drift.field}\u0000${drift.shape}`);
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
