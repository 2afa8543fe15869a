import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './fault-redis-server.ts';

const run = promisify(execFile);
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

/** initdb refuses to run as root: as root, a cluster belongs to the `postgres` user and its commands run as it. */
export async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

/**
 * A throwaway PostgreSQL server of its own on a free local port (trust auth on loopback, the
 * server's default settings otherwise), for what must restart a server: the machine's one is every
 * test's. Stopped and removed by destroy(), SIGKILLed when the process exits without it.
 */
export interface OwnPostgres {
  /** The admin URL (user postgres) of its `postgres` database. */
  adminUrl: string;
  /** Stops it (fast: open connections are cut, transactions in flight roll back) and starts it again. */
  restart(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const owner = await postgresUser();
  const directory = mkdtempSync(join(tmpdir(), 'chaintap-pg-'));
  if (owner) chownSync(directory, owner.uid, owner.gid);
  const pgCommand = (command: string, args: string[]) =>
    owner
      ? run('runuser', ['-u', 'postgres', '--', join(POSTGRES_BIN, command), ...args])
      : run(join(POSTGRES_BIN, command), args);
  const data = join(directory, 'data');
  const port = await freePort();
  const start = () =>
    pgCommand('pg_ctl', [
      ...['-D', data, '-l', join(directory, 'server.log'), '-w', 'start'],
      ...['-o', `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1`],
    ]);
  const stop = () => pgCommand('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  const killOnExit = () => {
    try {
      process.kill(Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGKILL');
    } catch {
      // Not running.
    }
    rmSync(directory, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  try {
    await pgCommand('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await start();
  } catch (error) {
    await stop().catch(() => undefined);
    process.off('exit', killOnExit);
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      await stop();
      await start();
    },
    async destroy() {
      await stop().catch(() => undefined);
      process.off('exit', killOnExit);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
