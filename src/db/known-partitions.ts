import type { Database } from './client.ts';

/**
 * Month partitions (as `table/YYYY-MM-01`) a process has ensured through a database in transactions
 * that committed (withTransaction adds them then). Its jobs skip the ensure statement for them: two a
 * job, 13 % of Postgres's execution time in a quarter-day of the soak. A partition detached or dropped since
 * makes an insert fail as routed nowhere (SQLSTATE 23514 on the parent); runQuery then forgets them
 * all and runs the work again, which ensures them anew.
 */
const known = new WeakMap<Database, Set<string>>();

export function knownPartitions(database: Database): Set<string> {
  let partitions = known.get(database);
  if (!partitions) known.set(database, (partitions = new Set()));
  return partitions;
}
