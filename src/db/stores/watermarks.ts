import type { Database } from '../client.ts';
import { runSql } from '../query.ts';

/** When each target of a dataset last succeeded: the producer serves the stalest first, so targets take turns. */
export async function loadTargetWatermarks(database: Database, dataset: string): Promise<Map<string, Date>> {
  const rows = await runSql(database, 'watermarks.read')<{ target: string; tick: Date }[]>`
    select target, last_success_tick as tick from dataset_watermarks where dataset = ${dataset}`;
  return new Map(rows.map((row) => [row.target, row.tick]));
}
