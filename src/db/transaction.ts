import type { Database, TransactionSql } from './client.ts';
import { isConnectionLost } from './driver-faults.ts';
import { runQuery, type StoreOperation } from './query.ts';

/** What a writer gets inside a job's transaction. */
export interface Tx {
  sql: TransactionSql;
}

/**
 * Runs `work` in one transaction. The transaction is one operation of runQuery, named `operation`: measured and logged as a whole, and run again whole
 * when Postgres aborted it as a deadlock victim or a serialization failure.
 */
export function withTransaction<T>(
  database: Database,
  operation: StoreOperation,
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  return runQuery(database, operation, () => transactionOnce(database, work));
}

async function transactionOnce<T>(database: Database, work: (tx: Tx) => Promise<T>): Promise<T> {
  const guard = connectionLossGuard();
  const result = await Promise.race([database.sql.begin((sql) => guard.run(() => work({ sql }))), guard.lost]);
  return result as T;
}

/**
 * postgres.js 3.4.9 answers a failed transaction callback with ROLLBACK on the same
 * connection even when that connection is gone, and that write throws from a timer where no caller
 * can catch it: the whole process dies (porsager/postgres#1154, #1208; no fixed release yet). When
 * the connection was lost, Postgres has rolled the transaction back already: the callback is left
 * unsettled, so that the driver writes nothing more, and the loss is reported through `lost`.
 */
function connectionLossGuard() {
  let report: (error: unknown) => void = () => undefined;
  const lost = new Promise<never>((_, reject) => (report = reject));
  return {
    lost,
    async run<R>(work: () => Promise<R>): Promise<R> {
      try {
        return await work();
      } catch (error) {
        if (!isConnectionLost(error)) throw error;
        report(error);
        return new Promise<never>(() => undefined);
      }
    },
  };
}
