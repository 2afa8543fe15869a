import type { Database } from '../client.ts';
import { poolCache } from '../pool-cache.ts';
import { runQuery } from '../query.ts';
import type { SchemaDrift } from '../schema/rows.ts';

/**
 * Per pool: the span of ticks recorded for each dataset, field and shape; a tick inside it would
 * change nothing.
 */
const recordedSpans = poolCache(() => new Map<string, { first: number; last: number }>());

/**
 * Records that fields of `dataset` came in another shape at `tick`: schema_drifts keeps, per
 * (dataset, field, shape), the first and the newest tick seen and how many newer ticks brought it.
 * Ticks, not clock times, so that writing a tick again changes nothing. A statement of its own after
 * the job's commit, not part of it: every job of a dataset would otherwise hold the same rows locked
 * until it commits. A tick this process has already covered sends nothing.
 */
export async function recordSchemaDrifts(
  database: Database,
  dataset: string,
  tick: Date,
  drifts: readonly SchemaDrift[],
): Promise<void> {
  const recorded = recordedSpans(database.sql);
  const at = tick.getTime();
  const fresh = drifts
    .filter((drift) => {
      const span = recorded.get(driftKey(dataset, drift));
      return !span || at < span.first || at > span.last;
    })
    .sort((a, b) => driftKey(dataset, a).localeCompare(driftKey(dataset, b)));
  if (fresh.length === 0) return;
  await runQuery(
    database,
    'schema_drifts.record',
    () => database.sql`
      insert into schema_drifts as d (dataset, field, shape, first_seen_at, last_seen_at, count)
      select ${dataset}, field, shape, ${tick}::timestamptz, ${tick}::timestamptz, 1
      from unnest(${fresh.map((d) => d.field)}::text[], ${fresh.map((d) => d.shape)}::text[]) as t(field, shape)
      on conflict (dataset, field, shape) do update
        set first_seen_at = least(d.first_seen_at, excluded.first_seen_at),
            last_seen_at = greatest(d.last_seen_at, excluded.last_seen_at),
            count = d.count + (excluded.last_seen_at > d.last_seen_at)::int
        where excluded.last_seen_at > d.last_seen_at or excluded.first_seen_at < d.first_seen_at`,
  );
  for (const drift of fresh) {
    const span = recorded.get(driftKey(dataset, drift));
    recorded.set(driftKey(dataset, drift), {
      first: Math.min(span?.first ?? at, at),
      last: Math.max(span?.last ?? at, at),
    });
  }
}

function driftKey(dataset: string, drift: SchemaDrift): string {
  return `${dataset}\u0000${drift.field}\u0000${drift.shape}`;
}
