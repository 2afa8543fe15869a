import { sleep } from '../runtime/sleep.ts';
import type { Database, Sql, TransactionSql } from './client.ts';
import { runQuery } from './query.ts';

/**
 * The read database (DATABASE_READ_URL, docs/read-replicas.md): how far it is behind the primary,
 * and waiting until it has replayed a position of the primary's write-ahead log.
 */

/** The read database's server as host:port (never its credentials): the lag gauge's label. */
export function databaseServer(database: Database): string {
  const { host, port } = database.sql.options;
  return `${host[0] ?? ''}:${port[0] ?? ''}`;
}

/** What the read database says of itself. */
export interface ReplicaLag {
  /** A hot standby (in recovery); false: a primary, or a copy that is not a streaming replica. */
  inRecovery: boolean;
  /**
   * Seconds behind the primary: now minus the commit time of the last transaction it replayed, 0
   * when it has replayed everything it received from a live WAL receiver (an idle primary sends
   * nothing, and that is no lag) or is not in recovery; null when it has replayed no transaction yet.
   */
  lagSeconds: number | null;
}

export async function loadReplicaLag(readDatabase: Database): Promise<ReplicaLag> {
  const [row] = await runQuery(
    readDatabase,
    'status.read',
    () => readDatabase.sql<{ inRecovery: boolean; lagSeconds: number | null }[]>`
    select pg_is_in_recovery() as "inRecovery",
           case
             when not pg_is_in_recovery() then 0
             when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() and exists (select 1 from pg_stat_wal_receiver)
               then 0
             else greatest(0, extract(epoch from now() - pg_last_xact_replay_timestamp()))
           end::float8 as "lagSeconds"`,
  );
  return { inRecovery: row!.inRecovery, lagSeconds: row!.lagSeconds };
}

/**
 * The primary's WAL position up to which everything is flushed, and so will be streamed: every
 * transaction committed before this call is at or before it.
 */
export async function primaryFlushPosition(primary: Sql | TransactionSql): Promise<string> {
  const [row] = await primary<{ lsn: string }[]>`select pg_current_wal_flush_lsn()::text as lsn`;
  return row!.lsn;
}

/** How often a wait for replay asks the standby where it is. */
const REPLAY_POLL_MS = 50;

/**
 * Whether the read database has replayed the primary's WAL up to `lsn` within `timeoutMs` (asked
 * every 50 ms). False when it is not a standby: it cannot say how far behind it is.
 */
export async function waitForReplay(readDatabase: Database, lsn: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await readDatabase.sql<{ inRecovery: boolean; replayed: boolean }[]>`
      select pg_is_in_recovery() as "inRecovery",
             coalesce(pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn, false) as replayed`;
    if (!row!.inRecovery) return false;
    if (row!.replayed) return true;
    if (Date.now() + REPLAY_POLL_MS > deadline) return false;
    await sleep(REPLAY_POLL_MS);
  }
}
