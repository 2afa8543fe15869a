import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort } from './fault-redis-server.ts';
import { POSTGRES_BIN as BIN, postgresUser } from './own-postgres.ts';
import { waitFor } from './fault-processes.ts';

const run = promisify(execFile);

/**
 * A throwaway PostgreSQL primary and a hot-standby replica streaming from it, each on a free local
 * port, trust auth on loopback. The shared test server cannot be used: a replica needs a cluster of
 * its own to follow, and the tests stop and pause it. Both are stopped and removed by destroy(), and
 * SIGKILLed when the test process exits without it.
 */
export interface PostgresReplicaPair {
  /** Admin URLs (user postgres) of the `postgres` database on each server. */
  primaryUrl: string;
  replicaUrl: string;
  /** The same server's URL for another database. */
  urlOf(server: 'primary' | 'replica', database: string): string;
  /** The replica's server log: with log_statement=all and each line prefixed `[application name]`. */
  replicaLog(): string;
  /** Resolves once the replica has replayed everything the primary has flushed now. */
  waitForReplay(): Promise<void>;
  /** Pauses or resumes the replica's replay (it still receives the WAL). */
  setReplayPaused(paused: boolean): Promise<void>;
  stopPrimary(): Promise<void>;
  startPrimary(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPostgresReplicaPair(): Promise<PostgresReplicaPair> {
  const owner = await postgresUser();
  const directory = mkdtempSync(join(tmpdir(), 'chaintap-pg-replica-'));
  if (owner) chownSync(directory, owner.uid, owner.gid);
  const asOwner = (command: string, args: string[]) =>
    owner ? run('runuser', ['-u', 'postgres', '--', join(BIN, command), ...args]) : run(join(BIN, command), args);
  const primaryData = join(directory, 'primary');
  const replicaData = join(directory, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const common = `-k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c hot_standby=on`;
  const startPrimary = () =>
    asOwner('pg_ctl', [
      ...['-D', primaryData, '-l', join(directory, 'primary.log'), '-w', 'start'],
      ...['-o', `-p ${primaryPort} ${common} -c wal_level=replica -c max_wal_senders=4`],
    ]);
  const stopServer = (data: string) => asOwner('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);

  // Whatever ends the test process, the servers do not outlive it.
  const postmasterPid = (data: string) => {
    try {
      return Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  const killOnExit = () => {
    for (const data of [replicaData, primaryData]) {
      const pid = postmasterPid(data);
      if (pid) process.kill(pid, 'SIGKILL');
    }
    rmSync(directory, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);

  const urlOf = (server: 'primary' | 'replica', database: string) =>
    `postgres://postgres@127.0.0.1:${server === 'primary' ? primaryPort : replicaPort}/${database}`;
  const adminOf = (server: 'primary' | 'replica') =>
    postgres(urlOf(server, 'postgres'), {
      max: 1,
      onnotice: () => {},
      connection: { application_name: `test-${server}-admin` },
    });
  try {
    await asOwner('initdb', ['-D', primaryData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await startPrimary();
    // -R: standby.signal and primary_conninfo, so that it starts as a hot standby of the primary.
    await asOwner('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
      ...['-D', replicaData, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
    ]);
    await asOwner('pg_ctl', [
      ...['-D', replicaData, '-l', join(directory, 'replica.log'), '-w', 'start'],
      ...['-o', `-p ${replicaPort} ${common} -c log_statement=all -c log_line_prefix=[%a]`],
    ]);
  } catch (error) {
    for (const data of [replicaData, primaryData]) await stopServer(data).catch(() => undefined);
    process.off('exit', killOnExit);
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  let primary = adminOf('primary');
  const replica = adminOf('replica');

  return {
    primaryUrl: urlOf('primary', 'postgres'),
    replicaUrl: urlOf('replica', 'postgres'),
    urlOf,
    replicaLog: () => readFileSync(join(directory, 'replica.log'), 'utf8'),
    async waitForReplay() {
      const [{ lsn }] = await primary<{ lsn: string }[]>`select pg_current_wal_flush_lsn()::text as lsn`;
      await waitFor(
        `the replica to replay the primary's WAL up to ${lsn}`,
        async () => {
          const [row] = await replica<{ replayed: boolean }[]>`
            select coalesce(pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn, false) as replayed`;
          return row!.replayed;
        },
        30_000,
        20,
      );
    },
    async setReplayPaused(paused) {
      await (paused ? replica`select pg_wal_replay_pause()` : replica`select pg_wal_replay_resume()`);
      // A pause takes effect at the next record: wait until the replica says it is paused.
      await waitFor(
        `replay ${paused ? 'paused' : 'resumed'}`,
        async () => {
          const [row] = await replica<{ state: string }[]>`select pg_get_wal_replay_pause_state() as state`;
          return paused ? row!.state === 'paused' : row!.state === 'not paused';
        },
        10_000,
        20,
      );
    },
    async stopPrimary() {
      await primary.end();
      await stopServer(primaryData);
    },
    async startPrimary() {
      await startPrimary();
      primary = adminOf('primary');
    },
    async destroy() {
      await Promise.all([primary.end(), replica.end()]);
      for (const data of [replicaData, primaryData]) await stopServer(data).catch(() => undefined);
      process.off('exit', killOnExit);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
