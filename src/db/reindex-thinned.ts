import type { Database } from './client.ts';
import { REFRESH_TABLES } from './downsample.ts';
import { runQuery } from './query.ts';

/**
 * Rebuilds, concurrently, the indexes of the unpartitioned history tables thinning deleted from.
 * Thinning keeps one row in four of each owner's (owner, time) range, and a B-tree does not merge
 * the leaf pages it leaves a quarter full: an owner's new rows go to the end of its range, never
 * back into them. So their index grew at the rate rows are written, not kept, for good (the soak at
 * 200 wallets: `position_refreshes`' index 3.1 to 4.1 MB a day before and after thinning began, its
 * heap 0.5; on day 17 its leaves were 30 % full). The snapshot partitions are rebuilt by the
 * monthly rewrite instead. Returns the tables rebuilt.
 */
export async function reindexThinnedTables(database: Database, thinned: readonly string[]): Promise<string[]> {
  const tables = REFRESH_TABLES.filter((table) => thinned.includes(table));
  // Not in a transaction (REINDEX CONCURRENTLY cannot be): writers and readers go on meanwhile.
  for (const table of tables)
    await runQuery(
      database,
      'retention.reindex',
      () => database.sql`reindex table concurrently ${database.sql(table)}`,
    );
  return tables;
}
