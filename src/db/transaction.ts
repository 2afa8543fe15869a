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

/** Runs `work` in one transaction; the afterCommit actions run after the commit. */
export async function withTransaction<T>(database: Database, work: (tx: Tx) => Promise<T>): Promise<T> {
  const actions: (() => void)[] = [];
  const result = await database.sql.begin(async (sql) => {
    const tx: Tx = { sql, db: bindDrizzle(sql, database.sql), database, afterCommit: (action) => actions.push(action) };
    return work(tx);
  });
  for (const action of actions) action();
  return result as T;
}
