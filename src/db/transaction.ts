import type { Database, TransactionSql } from './client.ts';
import { isConnectionLost } from './lost-connection.ts';
import { knownPartitions } from './known-partitions.ts';
import { runQuery, type StoreOperation } from './query.ts';

/**
 * What a writer gets inside a job's transaction. From withTransaction also the month partitions
 * known to exist (known-partitions.ts); those the transaction ensures are known once it committed:
 * until then other transactions cannot see them. Without it every write ensures its partition.
 */
export type Tx = { sql: TransactionSql; knownPartitions?: Pick<Set<string>, 'has' | 'add'> };

/** Runs `work` in one transaction: one runQuery operation, run again whole after a deadlock. */
export function withTransaction<T>(
  database: Database,
  operation: StoreOperation,
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  return runQuery(database, operation, () => {
    // postgres.js 3.4.9 answers a failed callback with ROLLBACK even on a lost connection, and that
    // write throws where no caller can catch it (porsager/postgres#1154, #1208). Postgres rolled back
    // already: the callback is left unsettled and the loss is reported through `lost`.
    let report: (error: unknown) => void = () => undefined;
    const lost = new Promise<never>((_, reject) => (report = reject));
    const known = knownPartitions(database);
    const ensured = new Set<string>();
    const partitions = { has: (key: string) => known.has(key), add: (key: string) => ensured.add(key) };
    const transaction = database.sql.begin(async (sql) => {
      try {
        return await work({ sql, knownPartitions: partitions });
      } catch (error) {
        if (!isConnectionLost(error)) throw error;
        report(error);
        return new Promise<never>(() => undefined);
      }
    });
    return (Promise.race([transaction, lost]) as Promise<T>).then((result) => {
      for (const key of ensured) known.add(key);
      return result;
    });
  });
}
