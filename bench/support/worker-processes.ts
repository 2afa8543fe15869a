import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Queues } from '../../src/queue/queues.ts';

const CLI = fileURLToPath(new URL('../../bin/chaintap.mjs', import.meta.url));

export interface WorkerProcesses {
  pids: number[];
  /** Peak resident set size (VmHWM) of each worker process so far, in bytes. */
  peakRss(): Promise<number[]>;
  /** SIGTERM, then SIGKILL after the timeout; resolves when every one has exited. */
  stop(): Promise<void>;
  /** What the processes wrote to stderr (warnings and errors at LOG_LEVEL=warn). */
  output(): string;
}

/**
 * Node flags of the chaintap processes: heap limits, as docs/benchmarks.md recommends for worker
 * processes (NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=16"). Without them V8 grows
 * a worker's heap far past its live set (about 50 MB at 96 jobs in flight) on a machine with memory
 * to spare: Node 24's young generation alone reaches 120 MB more. BENCH_NODE_ARGS replaces them,
 * e.g. with `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the workers, or with nothing
 * (`BENCH_NODE_ARGS=" "`) to measure without the limits.
 */
export const DEFAULT_NODE_ARGS = ['--max-old-space-size=192', '--max-semi-space-size=16'];

export function nodeArgs(): string[] {
  const given = process.env.BENCH_NODE_ARGS;
  return given === undefined ? DEFAULT_NODE_ARGS : given.split(/\s+/).filter(Boolean);
}

/**
 * Settings added to every chaintap process from BENCH_CHAINTAP_ENV (`NAME=value` pairs separated by
 * spaces), to compare a setting's effect, e.g. `BENCH_CHAINTAP_ENV="UPSTREAM_CONCURRENCY=8"`.
 */
export function extraSettings(): Record<string, string> {
  const pairs = (process.env.BENCH_CHAINTAP_ENV ?? '').split(/\s+/).filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`BENCH_CHAINTAP_ENV: "${pair}" is not NAME=value`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/**
 * Runs `chaintap <args>` as a node process of its own (no npm/npx wrapper: its pid is the worker's),
 * with only the given settings: it starts in the temporary directory, where no `.env` adds others.
 * `ownSession`: in a session of its own (setsid), so that Linux schedules it as a group of its own
 * (autogroup) rather than among the benchmark's processes.
 */
export function spawnChaintap(args: string[], env: Record<string, string>, { ownSession = false } = {}): ChildProcess {
  return spawn(process.execPath, [...nodeArgs(), CLI, ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...extraSettings(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: ownSession,
  });
}

/**
 * Starts `count` `chaintap worker` processes and waits until every one has a BullMQ worker on each
 * of `queues` (counted by Redis client names), so that timing starts with every worker ready.
 */
export async function startWorkers(
  count: number,
  env: Record<string, string>,
  queues: Queues,
  queueNames: (keyof Queues)[],
): Promise<WorkerProcesses> {
  const children = Array.from({ length: count }, () => spawnChaintap(['worker'], env));
  let stderr = '';
  for (const child of children) {
    child.stderr?.on('data', (chunk) => (stderr = (stderr + String(chunk)).slice(-20_000)));
    child.stdout?.resume();
  }
  const processes: WorkerProcesses = {
    pids: children.map((child) => child.pid!),
    peakRss: () => Promise.all(children.map((child) => peakRssOf(child.pid!))),
    output: () => stderr,
    async stop() {
      await Promise.all(children.map((child) => stopChild(child, 30_000)));
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const exited = children.find((child) => child.exitCode !== null);
    if (exited) throw new Error(`a worker process exited with ${exited.exitCode}: ${stderr}`);
    const counts = await Promise.all(queueNames.map((name) => queues[name].getWorkersCount()));
    if (counts.every((n) => n >= count)) return processes;
    if (Date.now() > deadline) {
      await processes.stop();
      throw new Error(`worker processes not ready after 60 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** VmHWM of /proc/<pid>/status, in bytes. */
export async function peakRssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

export function stopChild(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
