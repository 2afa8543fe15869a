import type { Database, TransactionSql } from './client.ts';
import { isConnectionLost } from './driver-faults.ts';
import { runQuery, type StoreOperation } from './query.ts';

/** What a writer gets inside a job's transaction. */
export interface Tx {
  sql: TransactionSql;
  /** The pool the transaction belongs to (owner of the in-process partition cache). */
  database: Database;
  /** Runs `action` once the transaction has committed (never when it rolls back). */
  afterCommit(action: () => void): void;
  /** `sql.savepoint`, guarded like the transaction against a lost connection (see withTransaction). */
  savepoint<T>(work: (sql: TransactionSql) => Promise<T>): Promise<T>;
}

/**
 * Runs `work` in one transaction; the afterCommit actions run after the commit. The transaction is
 * one operation of runQuery, named `operation`: measured and logged as a whole, and run again whole
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
  const actions: (() => void)[] = [];
  const guard = connectionLossGuard();
  const result = await Promise.race([
    database.sql.begin(async (sql) => {
      const tx: Tx = {
        sql,
        database,
        afterCommit: (action) => actions.push(action),
        savepoint: (inner) => sql.savepoint((sp) => guard.run(() => inner(sp))) as Promise<never>,
      };
      return guard.run(() => work(tx));
    }),
    guard.lost,
  ]);
  for (const action of actions) action();
  return result as T;
}

/**
 * postgres.js 3.4.9 answers a failed transaction (or savepoint) callback with ROLLBACK on the same
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
