import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { requireBinaries } from './binaries.ts';

/**
 * A redis-server of the test's own (the shared one must never be restarted), on a free port, with
 * the append-only file on as in production, so that it can be shut down and started again on the
 * same port and directory with its queues intact.
 */
export interface OwnRedis {
  port: number;
  url: string;
  dir: string;
  /** Starts it (again), with the same port, directory and settings. */
  start(): Promise<void>;
  /** SHUTDOWN (which writes the AOF) and waits for the process to end. */
  shutdown(): Promise<void>;
  /** Shuts it down when running and removes its directory. */
  destroy(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startOwnRedis(settings: { maxmemoryPolicy?: string } = {}): Promise<OwnRedis> {
  requireBinaries('redis-server');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'chaintap-redis-'));
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const own: OwnRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    async start() {
      const args = [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--save',
        '',
        '--maxmemory-policy',
        settings.maxmemoryPolicy ?? 'noeviction',
      ];
      const started = spawn('redis-server', args, { stdio: 'ignore' });
      child = started;
      exited = new Promise((resolve) => started.once('exit', () => resolve()));
      await waitForPing(port, 20_000);
    },
    async shutdown() {
      if (!child || child.exitCode !== null) return;
      const redis = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0, lazyConnect: true });
      try {
        await redis.connect();
        await redis.call('SHUTDOWN').catch(() => undefined); // the connection closes as the server exits
      } finally {
        redis.disconnect();
      }
      await exited;
    },
    async destroy() {
      if (child && child.exitCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await own.start();
  return own;
}

async function waitForPing(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const redis = new Redis(port, '127.0.0.1', {
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      // While loading the AOF Redis answers LOADING: only a PONG means it serves commands.
      if ((await redis.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      redis.disconnect();
    }
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
