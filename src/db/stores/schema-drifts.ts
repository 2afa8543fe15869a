import type { Database } from '../client.ts';
import { runSql } from '../query.ts';
import type { SchemaDrift } from '../schema/rows.ts';
import { lastByKey } from './upsert.ts';

/**
 * The earliest and latest tick each drift was recorded at through a database by this process. A
 * drift at a tick between them changes nothing (its row's first_seen_at is no later, its
 * last_seen_at no earlier): not sent. Every job of a drifting dataset carries its drifts.
 */
const recorded = new WeakMap<Database, Map<string, { first: number; last: number }>>();

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
  const ranges = recorded.get(database) ?? new Map<string, { first: number; last: number }>();
  recorded.set(database, ranges);
  const at = tick.getTime();
  const key = (drift: SchemaDrift) => `${dataset}\u0000${drift.field}\u0000${drift.shape}`;
  const news = drifts.filter((drift) => {
    const range = ranges.get(key(drift));
    return !range || at < range.first || at > range.last;
  });
  if (news.length === 0) return;
  const sorted = lastByKey([...news], (drift) => `${drift.field}\u0000${drift.shape}`);
  await runSql(database, 'schema_drifts.record')`
      insert into schema_drifts as d (dataset, field, shape, first_seen_at, last_seen_at, count)
      select ${dataset}, field, shape, ${tick}::timestamptz, ${tick}::timestamptz, 1
      from unnest(${sorted.map((d) => d.field)}::text[], ${sorted.map((d) => d.shape)}::text[]) as t(field, shape)
      on conflict (dataset, field, shape) do update
        set first_seen_at = least(d.first_seen_at, excluded.first_seen_at),
            last_seen_at = greatest(d.last_seen_at, excluded.last_seen_at),
            count = d.count + (excluded.last_seen_at > d.last_seen_at)::int
        where excluded.last_seen_at > d.last_seen_at or excluded.first_seen_at < d.first_seen_at`;
  for (const drift of sorted) {
    const range = ranges.get(key(drift));
    ranges.set(key(drift), { first: Math.min(range?.first ?? at, at), last: Math.max(range?.last ?? at, at) });
  }
}
