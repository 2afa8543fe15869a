import type { Database } from '../db/client.js';
import { runQuery } from '../db/query.js';
import type { Logger } from '../runtime/logger.js';
import type { TickStream } from '../datasets.js';

export const SNAPSHOT_CHANNEL = 'chaintap_snapshots';

/**
 * Tells LISTENing alerting jobs that every job of a dataset's tick has finished:
 * {"dataset":"positions","tick":"2026-11-21T12:15:00.000Z"}; a backfill time step is announced as
 * {"dataset":"prices","tick":...,"backfill":true}.
 */
export async function announceTickComplete(
  database: Database,
  logger: Logger,
  stream: TickStream,
  tick: Date,
): Promise<void> {
  const dataset = stream === 'backfill' ? 'prices' : stream;
  const payload = JSON.stringify({
    dataset,
    tick: tick.toISOString(),
    ...(stream === 'backfill' ? { backfill: true } : {}),
  });
  await runQuery(database, 'ticks.notify', () => database.sql.notify(SNAPSHOT_CHANNEL, payload));
  logger.info({ dataset, tick: tick.toISOString() }, 'tick complete');
}
