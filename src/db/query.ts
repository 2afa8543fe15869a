import type postgres from 'postgres';
import { describe } from '../errors.ts';
import { sleep } from '../runtime/sleep.ts';
import type { Database } from './client.ts';
import { knownPartitions } from './known-partitions.ts';
import type { RunRecord } from './stores/jobs.ts';

/** The `store` label of chaintap_db_query_duration_seconds and logs: a fixed list keeps its cardinality small. */
export type StoreOperation =
  | `${RunRecord['dataset']}.write`
  | `jobs.${'record_failure' | 'quarantine' | 'record_superseded'}`
  | `${'quarantined_payloads' | 'ingestion_runs' | 'raw_responses' | 'alert_events'}.prune`
  | `${'watermarks' | 'alerts' | 'reports' | 'prices' | 'raw_responses' | 'status' | 'compaction' | 'downsample' | 'refresh_targets'}.read`
  | `alerts.${'evaluate' | 'deliver'}`
  | `watchlist.${'add' | 'remove' | 'list' | 'apply'}`
  | `partitions.${'ensure' | 'list' | 'detach' | 'reindex'}`
  | `downsample.${'delete' | 'record'}`
  | `compaction.${'vacuum' | 'record'}`
  | `retention.${'vacuum' | 'reindex'}`
  | 'protocols.list'
  | 'refresh_targets.seed'
  | 'schema_drifts.record'
  | 'readiness.check'
  | 'ticks.notify';

/** Deadlock and serialization failures: Postgres rolled the work back whole, so it may simply run again. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 4;
/**
 * A row routed to no partition (or another CHECK failure: Postgres gives both this SQLSTATE). With
 * partitions believed to exist it runs once more, having forgotten them, so that it ensures its own.
 */
const CHECK_VIOLATION = '23514';

/**
 * Runs one operation: the one place that retries (`work` must be the whole unit Postgres rolled
 * back), measures and logs (by SQLSTATE, never with the SQL text or parameters).
 */
export async function runQuery<T>(
  database: Database,
  operation: StoreOperation,
  work: () => PromiseLike<T>,
): Promise<T> {
  const { metrics, logger } = database.instrumentation ?? {};
  const stopTimer = metrics?.dbQueryDuration.startTimer({ store: operation });
  let partitionsForgotten = false;
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await work();
      stopTimer?.({ outcome: 'ok' });
      return result;
    } catch (error) {
      const code = sqlState(error);
      if (code === CHECK_VIOLATION && !partitionsForgotten && knownPartitions(database).size > 0) {
        logger?.debug({ store: operation, sqlState: code }, 'a row routed to no partition; ensuring them again');
        knownPartitions(database).clear();
        partitionsForgotten = true;
        continue;
      }
      if (attempt < MAX_ATTEMPTS && code !== undefined && RETRYABLE_SQLSTATES.has(code)) {
        logger?.debug(
          { store: operation, sqlState: code, attempt },
          'database operation rolled back; running it again',
        );
        await sleep(20 + Math.random() * 80 * attempt);
        continue;
      }
      stopTimer?.({ outcome: 'error' });
      logger?.warn(
        { store: operation, sqlState: code, attempts: attempt, err: describe(error) },
        'database operation failed',
      );
      throw error;
    }
  }
}

/** A tag that runs one statement through runQuery: `await runSql(database, 'status.read')<Row[]>\`select ...\``. */
export function runSql(database: Database, operation: StoreOperation) {
  return <T extends readonly object[] = postgres.Row[]>(
    template: TemplateStringsArray,
    ...parameters: postgres.ParameterOrFragment<never>[]
  ) => runQuery(database, operation, () => database.sql<T>(template, ...parameters));
}

/** The SQLSTATE of a Postgres error, also when wrapped (along its `cause` chain). */
function sqlState(error: unknown): string | undefined {
  for (let e = error; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
