import { bindDrizzle, type Database, type Db, type TransactionSql } from './client.js';
import { isConnectionLost } from './driver-faults.js';

/** What a writer gets inside a job's transaction. */
export interface Tx {
  sql: TransactionSql;
  /** Drizzle over the same transaction. */
  db: Db;
  /** The pool the transaction belongs to (owner of the in-process partition cache). */
  database: Database;
  /** Runs `action` once the transaction has committed (never when it rolls back). */
  afterCommit(action: () => void): void;
  /** `sql.savepoint`, guarded like the transaction against a lost connection (see withTransaction). */
  savepoint<T>(work: (sql: TransactionSql) => Promise<T>): Promise<T>;
}

/** Deadlock and serialization failures: the transaction was rolled back whole and may simply run again. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const MAX_TRANSACTION_ATTEMPTS = 4;

/**
 * Runs `work` in one transaction; the afterCommit actions run after the commit. A transaction that
 * Postgres aborted as a deadlock victim or a serialization failure runs again (with a short random
 * pause) instead of failing the job.
 */
export async function withTransaction<T>(database: Database, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const actions: (() => void)[] = [];
    const guard = connectionLossGuard();
    try {
      const result = await Promise.race([
        database.sql.begin(async (sql) => {
          let db: Db | undefined;
          const tx: Tx = {
            sql,
            // Built on first use: most writers use plain SQL, and a Drizzle instance costs about
            // 0.14 ms of CPU (it reads the whole schema's relations; profiled in a worker).
            get db() {
              return (db ??= bindDrizzle(sql, database.sql));
            },
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
    } catch (error) {
      if (attempt >= MAX_TRANSACTION_ATTEMPTS || !RETRYABLE_SQLSTATES.has(sqlState(error) ?? '')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80 * attempt));
    }
  }
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

/** The SQLSTATE of a Postgres error, also when Drizzle wrapped it. */
function sqlState(error: unknown): string | undefined {
  for (let e = error; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
