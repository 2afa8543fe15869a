import type { Database } from './client.ts';
import { runQuery } from './query.ts';

/**
 * Plain VACUUM (ANALYZE) of the tables the housekeeping just deleted from, so that the space of the
 * rows past their retention is reused from the next insert on. Left to autovacuum (20 % of a table
 * dead by default), a table that loses a fourteenth of itself a day waits about three days for it
 * and grows by those days' rows in between: its size, and the database's growth, would be a saw, not
 * the retention's level. Plain VACUUM takes no lock that writers wait on, and skips the pages no
 * delete touched (the visibility map), so a partitioned table's untouched months cost little.
 */
export async function vacuumPrunedTables(database: Database, tables: readonly string[]): Promise<void> {
  // VACUUM cannot run in a transaction: a statement of its own on the pool, one table at a time.
  for (const table of tables)
    await runQuery(database, 'retention.vacuum', () => database.sql`vacuum (analyze) ${database.sql(table)}`);
}
