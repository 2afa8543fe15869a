import { bindDrizzle, type Database, type Db, type TransactionSql } from './client.js';

/** What a writer gets inside a job's transaction. */
export interface Tx {
  sql: TransactionSql;
  /** Drizzle over the same transaction. */
  db: Db;
  /** The pool the transaction belongs to (owner of the in-process partition cache). */
  database: Database;
  /** Runs `action` once the transaction has committed (never when it rolls back). */
  afterCommit(action: () => void): void;
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
    try {
      const result = await database.sql.begin(async (sql) => {
        const tx: Tx = { sql, db: bindDrizzle(sql, database.sql), database, afterCommit: (action) => actions.push(action) };
        return work(tx);
      });
      for (const action of actions) action();
      return result as T;
    } catch (error) {
      if (attempt >= MAX_TRANSACTION_ATTEMPTS || !RETRYABLE_SQLSTATES.has(sqlState(error) ?? '')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80 * attempt));
    }
  }
}

/** The SQLSTATE of a Postgres error, also when Drizzle wrapped it. */
function sqlState(error: unknown): string | undefined {
  for (let e = error; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
