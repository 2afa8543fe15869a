import type { Database } from './client.ts';
import { runSql } from './query.ts';

/** The read database's server as host:port (never its credentials): the lag gauge's label. */
export function databaseServer(database: Database): string {
  const { host, port } = database.sql.options;
  return `${host[0] ?? ''}:${port[0] ?? ''}`;
}

/** What the read database (DATABASE_READ_URL, docs/read-replicas.md) says of itself. */
export interface ReplicaLag {
  /** A hot standby (in recovery); false: a primary, or a copy that is not a streaming replica. */
  inRecovery: boolean;
  /**
   * Seconds since the commit of the last transaction it replayed; 0 when it replayed all a live WAL
   * receiver sent (an idle primary sends nothing) or is no standby; null before its first replay.
   */
  lagSeconds: number | null;
}

export async function loadReplicaLag(readDatabase: Database): Promise<ReplicaLag> {
  const [row] = await runSql(readDatabase, 'status.read')<ReplicaLag[]>`
    select pg_is_in_recovery() as "inRecovery",
           case
             when not pg_is_in_recovery() then 0
             when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() and exists (select 1 from pg_stat_wal_receiver)
               then 0
             else greatest(0, extract(epoch from now() - pg_last_xact_replay_timestamp()))
           end::float8 as "lagSeconds"`;
  return row!;
}
