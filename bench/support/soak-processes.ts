import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { SettledMemory } from './settled-memory.ts';
import { extraSettings, nodeArgs, stopChild } from './worker-processes.ts';

const CLI = fileURLToPath(new URL('../../bin/chaintap.mjs', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./logical-clock-preload.ts', import.meta.url));
const SCHEDULER = fileURLToPath(new URL('./soak-scheduler.ts', import.meta.url));

/** RSS (VmRSS) and the V8 heap after a full garbage collection, in bytes. */
export type ProcessMemory = { rss: number } & Pick<SettledMemory, 'heapUsed' | 'heapTotal' | 'youngGeneration'>;

/** A chaintap process of the soak on its logical clock (logical-clock-preload.ts), told the time over IPC. */
export interface SoakProcess {
  name: string;
  pid: number;
  running(): boolean;
  /** Whether it ended without the soak asking (kill() or stop()), and how. */
  exitedOnItsOwn(): string | undefined;
  setLogicalTime(logicalMs: number): void;
  /** Its heap as it reports it, and its RSS from /proc (VmRSS). */
  memory(): Promise<ProcessMemory>;
  /** SIGKILL: a crash, nothing closed. */
  kill(): Promise<void>;
  /** SIGTERM (SIGKILL after 30 s). */
  stop(): Promise<void>;
}

/** The scheduler's process (soak-scheduler.ts): its cron slots fired up to a logical minute on request. */
export interface SoakScheduler extends SoakProcess {
  /** Resolves once its slots up to `logicalMs` were fired; rejects if it ends first. */
  advanceTo(logicalMs: number): Promise<void>;
  /** Writes a V8 heap snapshot of it to `path`. */
  writeHeapSnapshot(path: string): Promise<void>;
}

/** The soak's scheduler, its clock at `logicalMs` (the last minute it fired), running once it says it is. */
export async function spawnSoakScheduler(
  env: Record<string, string>,
  logicalMs: number,
  onOutput: (line: string) => void,
): Promise<SoakScheduler> {
  const { process: started, ask } = spawnWithChannel('scheduler', SCHEDULER, [], env, logicalMs, onOutput);
  await ask({}, 'ready', 60_000);
  return {
    ...started,
    advanceTo: async (ms) => void (await ask({ advanceTo: ms }, 'advanced', 0)),
    writeHeapSnapshot: async (path) => void (await ask({ heapSnapshot: path }, 'written', 120_000)),
  };
}

export function spawnSoakProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
  logicalMs: number,
  onOutput: (line: string) => void,
): SoakProcess {
  return spawnWithChannel(name, CLI, args, env, logicalMs, onOutput).process;
}

/**
 * `script` on the logical clock with its IPC channel; `ask` sends a message (none when empty) and
 * resolves with the first answer that has `reply` (within `timeoutMs`, 0: no limit), or rejects
 * when the process ends first.
 */
function spawnWithChannel(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  logicalMs: number,
  onOutput: (line: string) => void,
) {
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs(), '--import', PRELOAD, script, ...args], {
    cwd: tmpdir(),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...extraSettings(),
      ...env,
      SOAK_LOGICAL_START_MS: String(logicalMs),
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout?.resume();
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) if (line.trim()) onOutput(`${name}: ${line}`);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const ask = (message: object, reply: string, timeoutMs: number) =>
    new Promise<unknown>((resolve, reject) => {
      const timer =
        timeoutMs > 0 ? setTimeout(() => done(new Error(`${name} did not answer ${reply}`)), timeoutMs) : undefined;
      const onMessage = (answer: Record<string, unknown>) => {
        if (reply in answer) done(undefined, answer[reply]);
      };
      const onExit = () => done(new Error(`${name} ended before it answered ${reply}`));
      const done = (error?: Error, value?: unknown) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve(value);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (!running()) done(new Error(`${name} is not running`));
      else if (Object.keys(message).length > 0) child.send(message);
    });
  let asked = false;
  const process_: SoakProcess = {
    name,
    pid: child.pid!,
    running,
    exitedOnItsOwn() {
      if (asked || running()) return undefined;
      return child.signalCode ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`;
    },
    setLogicalTime(ms) {
      if (running() && child.connected) child.send({ logicalMs: ms });
    },
    async memory() {
      const rss = await rssOf(child.pid!);
      const heap = (await ask({ memory: true }, 'memory', 10_000)) as SettledMemory;
      return { rss, heapUsed: heap.heapUsed, heapTotal: heap.heapTotal, youngGeneration: heap.youngGeneration };
    },
    async kill() {
      asked = true;
      if (running()) child.kill('SIGKILL');
      await exited;
    },
    stop: () => {
      asked = true;
      return stopChild(child, 30_000);
    },
  };
  return { process: process_, ask };
}

/** VmRSS of /proc/<pid>/status, in bytes. */
export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}
