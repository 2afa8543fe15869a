import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { requireBinaries } from './binaries.ts';

/**
 * One redis-server or redis-sentinel process of a test topology (test/support/redis-cluster.ts,
 * redis-sentinel.ts): started in its own process group, killed as a group, and never left behind.
 */
export interface RedisProcess {
  port: number;
  /** True until the process has exited. */
  running(): boolean;
  /** SIGKILLs its process group and waits for the exit; does nothing when it has exited already. */
  kill(): Promise<void>;
}

export interface RedisAddress {
  host: string;
  port: number;
}

// A test run that ends without stop() (an exception, process.exit) kills what it started.
const liveGroups = new Set<number>();
process.on('exit', () => {
  for (const pid of liveGroups) killGroup(pid);
});

/**
 * `sh` starts a watchdog that reads our end of a pipe, then execs the server, which keeps the pid:
 * when this process dies however it dies (even SIGKILL), the pipe closes and the watchdog kills the
 * server. A non-interactive shell gives background jobs /dev/null as stdin, hence the fd 3.
 */
const WATCHDOG = 'exec 3<&0; (cat <&3 >/dev/null; kill -9 $$) 2>/dev/null & exec "$0" "$@" 3<&-';

/**
 * Starts `binary args(port)` and resolves once it answers PING. `port` picks the port; when the
 * process exits before answering because the port was taken meanwhile (another test picked it too),
 * it tries again with a new one, at most three times. `logFile` (the --logfile of the args) is
 * quoted in the error when it fails.
 */
export async function startRedisProcess(settings: {
  binary: 'redis-server' | 'redis-sentinel';
  port: () => Promise<number>;
  args: (port: number) => string[];
  logFile: string;
  timeoutMs?: number;
}): Promise<RedisProcess> {
  requireBinaries(settings.binary);
  for (let attempt = 1; ; attempt += 1) {
    const port = await settings.port();
    const started = spawnRedis(settings.binary, settings.args(port), port);
    const what = `${settings.binary} on 127.0.0.1:${port} answering PING`;
    try {
      await waitUntil(what, settings.timeoutMs ?? 20_000, async () => {
        if (!started.handle.running()) return null; // it will not answer: told below
        const reply = await redisCommand(port, 'PING');
        return reply === 'PONG' ? null : `it answered ${String(reply)}`;
      });
    } catch (error) {
      await started.handle.kill();
      throw error;
    }
    if (started.handle.running()) return started.handle;
    const log = `${await started.stderr}${tail(settings.logFile)}`;
    if (attempt < 3 && /address already in use/i.test(log)) continue;
    throw new Error(`${settings.binary} on port ${port} exited before answering PING:\n${log}`);
  }
}

function spawnRedis(binary: string, args: string[], port: number) {
  const child = spawn('sh', ['-c', WATCHDOG, binary, ...args], {
    detached: true, // its own process group: kill(-pid) reaches the watchdog too
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${binary} could not be started`);
  liveGroups.add(pid);
  let output = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (output += chunk));
  const stderr = new Promise<string>((resolve) => child.once('close', () => resolve(output)));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      liveGroups.delete(pid);
      killGroup(pid); // the watchdog, when the server died alone
      resolve();
    }),
  );
  const handle: RedisProcess = {
    port,
    running: () => child.exitCode === null && child.signalCode === null,
    async kill() {
      if (handle.running()) killGroup(pid);
      await exited;
    },
  };
  return { handle, stderr };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

function tail(file: string): string {
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
}

/** Sends one command to 127.0.0.1:`port` on a connection of its own, which it closes. */
export async function redisCommand(port: number, command: string, ...args: (string | number)[]): Promise<unknown> {
  const redis = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    enableReadyCheck: false, // ROLE and INFO answer while a replica loads; the checks want to see that
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1_000,
    commandTimeout: 2_000,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.call(command, ...args);
  } finally {
    redis.disconnect();
  }
}

/**
 * Polls `problem` until it returns null (the awaited state) and throws after `timeoutMs`, naming
 * `what` did not happen and the last problem seen. A probe that throws counts as a problem.
 */
export async function waitUntil(what: string, timeoutMs: number, problem: () => Promise<string | null>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: string;
    try {
      const found = await problem();
      if (found === null) return;
      last = found;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms (last seen: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
