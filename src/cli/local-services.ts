import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ChaintapError } from '../errors.ts';
import type { Logger } from '../runtime/logger.ts';
import { isLoopback } from '../config/loopback.ts';

const run = promisify(execFile);

/**
 * The PostgreSQL and Redis of `chaintap demo`: the configured ones when they answer; else, when meant to
 * be local and installed (Debian's or Homebrew's packages), throwaway ones on free ports, removed when
 * the demo stops; else a one-screen message on how to get them.
 */
export async function ensureDemoServices(databaseUrl: string, redisUrl: string, logger: Logger) {
  const stops: (() => Promise<void>)[] = [];
  const started: string[] = [];
  const stop = async () => {
    for (const stopOne of stops.reverse()) await stopOne().catch(() => undefined);
  };
  try {
    if (!(await answers(databaseUrl))) {
      const postgres = await startThrowawayPostgres(databaseUrl);
      stops.push(postgres.stop);
      databaseUrl = postgres.url;
      started.push(`PostgreSQL at ${postgres.url} (data in ${postgres.directory})`);
    }
    if (!(await answers(redisUrl))) {
      const redis = await startThrowawayRedis(redisUrl);
      stops.push(redis.stop);
      redisUrl = redis.url;
      started.push(`Redis at ${redis.url}`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  if (started.length > 0) logger.info({ started }, 'started throwaway local services for the demo');
  return { databaseUrl, redisUrl, started, stop };
}

/** Whether something accepts TCP connections at the URL's host and port within a second. */
async function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const defaultPort = url.startsWith('redis') ? 6379 : 5432;
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function howToGet(what: string, url: string, reason: string): ChaintapError {
  const lines = [
    `chaintap demo needs ${what}, and ${url.replace(/\/\/[^@/]*@/, '//')} does not answer: ${reason}.`,
    '',
    'Install it, and the demo starts a throwaway instance itself (nothing to configure):',
    '  Debian/Ubuntu:  sudo apt-get install postgresql redis-server',
    '  macOS:          brew install postgresql@15 redis',
    'or run both with Docker:',
    '  docker compose up -d postgres redis      (from this repository; see README.md)',
    'or point DATABASE_URL / REDIS_URL at servers you already have.',
  ];
  return new ChaintapError(lines.join('\n'));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** When `configured` is on this machine, the first directory with all the binaries: PATH, then the packages'. */
function serverBinaries(what: string, configured: string, names: string[], extraDirectories: string[]): string {
  if (!isLoopback(new URL(configured).hostname)) throw howToGet(what, configured, 'it is not on this machine');
  const directories = [...(process.env.PATH ?? '').split(':').filter(Boolean), ...extraDirectories];
  const bin = directories.find((directory) => names.every((name) => existsSync(join(directory, name))));
  if (!bin) throw howToGet(what, configured, `no ${what} server is installed (${names.join(', ')})`);
  return bin;
}

function postgresBinDirectories(): string[] {
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return [
    ...versions.map((version) => join(debian, version, 'bin')),
    '/opt/homebrew/bin',
    '/usr/local/bin',
    '/opt/homebrew/opt/postgresql@15/bin',
    '/usr/local/opt/postgresql@15/bin',
  ];
}

/** initdb refuses to run as root: as root, the cluster is run as Debian's `postgres` user. */
async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    return { uid, gid };
  } catch {
    throw new ChaintapError(
      'chaintap demo runs as root, and initdb refuses to: create a `postgres` user, or run the demo as another user.',
    );
  }
}

async function startThrowawayPostgres(
  configured: string,
): Promise<{ url: string; directory: string; stop: () => Promise<void> }> {
  const bin = serverBinaries('PostgreSQL', configured, ['initdb', 'pg_ctl'], postgresBinDirectories());
  const owner = await postgresUser();
  const directory = await mkdtemp(join(tmpdir(), 'chaintap-demo-pg-'));
  if (owner) await chown(directory, owner.uid, owner.gid);
  const asOwner = (command: string, args: string[]) =>
    owner ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args);
  const data = join(directory, 'data');
  const port = await freePort();
  try {
    await asOwner('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await asOwner('pg_ctl', [
      '-D',
      data,
      '-l',
      join(directory, 'postgres.log'),
      '-o',
      `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`,
      '-w',
      'start',
    ]);
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw new ChaintapError(`could not start a throwaway PostgreSQL: ${(error as Error).message.split('\n')[0]}`);
  }
  const database = new URL(configured).pathname.slice(1) || 'chaintap';
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${database}`,
    directory,
    stop: async () => {
      await asOwner('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
}

async function startThrowawayRedis(configured: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const packageDirectories = ['/opt/homebrew/bin', '/usr/local/bin', '/usr/bin'];
  const bin = serverBinaries('Redis', configured, ['redis-server'], packageDirectories);
  const directory = await mkdtemp(join(tmpdir(), 'chaintap-demo-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    join(bin, 'redis-server'),
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', directory],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
  };
  for (let i = 0; i < 50; i += 1) {
    if (await answers(url)) return { url, stop };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new ChaintapError('could not start a throwaway Redis (redis-server did not answer within 5 s)');
}
