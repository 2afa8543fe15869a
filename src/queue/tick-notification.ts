import type { Database } from '../db/client.ts';
import { runQuery } from '../db/query.ts';
import type { Logger } from '../runtime/logger.ts';
import type { TickStream } from '../datasets.ts';

export const SNAPSHOT_CHANNEL = 'chaintap_snapshots';

/**
 * Tells LISTENers that every job of a dataset's tick has finished: {"dataset":"positions","tick":...},
 * with "backfill":true for a backfill step, and `superseded`: how many targets have no snapshot at
 * this tick because a newer tick's job replaced theirs before it ran (docs/quota.md).
 */
export async function announceTickComplete(
  database: Database,
  logger: Logger,
  stream: TickStream,
  tick: Date,
  { superseded = 0 }: { superseded?: number } = {},
): Promise<void> {
  const dataset = stream === 'backfill' ? 'prices' : stream;
  const payload = JSON.stringify({
    dataset,
    tick: tick.toISOString(),
    ...(stream === 'backfill' ? { backfill: true } : {}),
    ...(superseded > 0 ? { superseded } : {}),
  });
  await runQuery(database, 'ticks.notify', () => database.sql.notify(SNAPSHOT_CHANNEL, payload));
  logger.info({ dataset, tick: tick.toISOString(), ...(superseded > 0 ? { superseded } : {}) }, 'tick complete');
}
