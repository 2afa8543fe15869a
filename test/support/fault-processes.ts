import type { ChildProcess } from 'node:child_process';
import { spawnCli } from './cli.ts';

/**
 * A `chaintap` child process for the fault scenarios: its output kept line by line, helpers to wait
 * for a log line and for its exit, and a kill that never leaves it running after the test.
 */
export interface ChaintapProcess {
  name: string;
  child: ChildProcess;
  /** Every stdout and stderr line so far (JSON log lines go to stderr). */
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first line matching `pattern` (already written or to come). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal` (default SIGKILL) when still running and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startChaintap(name: string, args: string[], env: Record<string, string>): ChaintapProcess {
  const child = spawnCli(args, env);
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const take = (stream: NodeJS.ReadableStream | null) => {
    let rest = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        for (const waiter of [...waiters]) {
          if (waiter.pattern.test(line)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(line);
          }
        }
      }
    });
    stream?.on('end', () => rest && lines.push(rest));
  };
  take(child.stdout);
  take(child.stderr);
  let running = true;
  child.on('exit', () => (running = false));
  // After its output is read to the end ('close'), so that `lines` holds every line it wrote.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    name,
    child,
    lines,
    exited,
    waitForLine(pattern, timeoutMs = 30_000) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const index = waiters.findIndex((w) => w.pattern === pattern);
          if (index >= 0) waiters.splice(index, 1);
          reject(
            new Error(
              `${name}: no line matching ${pattern} within ${timeoutMs} ms; last lines:\n${lines.slice(-20).join('\n')}`,
            ),
          );
        }, timeoutMs);
        waiters.push({ pattern, resolve: (line) => (clearTimeout(timer), resolve(line)) });
        void exited.then(() => {
          if (waiters.some((w) => w.pattern === pattern)) {
            clearTimeout(timer);
            reject(
              new Error(
                `${name} exited before a line matching ${pattern}; last lines:\n${lines.slice(-20).join('\n')}`,
              ),
            );
          }
        });
      });
    },
    async stop(signal = 'SIGKILL') {
      if (running) child.kill(signal);
      return exited;
    },
  };
}

/** Starts `chaintap worker` and waits until its workers run. */
export async function startWorker(name: string, env: Record<string, string>): Promise<ChaintapProcess> {
  const worker = startChaintap(name, ['worker'], { OPS_PORT: '0', ...env });
  await worker.waitForLine(/"msg":"chaintap running"/, 60_000);
  return worker;
}

/** Polls `condition` until it holds; throws with `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A small seeded generator, so that a failing run's random kill points can be replayed (FAULTS_SEED). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

/** FAULTS_SEED when set (to replay a run), else a fresh seed; printed by the scenarios that use it. */
export function faultSeed(): number {
  const given = Number(process.env.FAULTS_SEED);
  return Number.isInteger(given) && given > 0 ? given : Math.floor(Math.random() * 2 ** 31) + 1;
}
