import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { SettledMemory } from './settled-memory.ts';
import { extraSettings, nodeArgs, stopChild } from './worker-processes.ts';

const CLI = fileURLToPath(new URL('../../bin/chaintap.mjs', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./logical-clock-preload.ts', import.meta.url));

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

export function spawnSoakProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
  logicalMs: number,
  onOutput: (line: string) => void,
): SoakProcess {
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs(), '--import', PRELOAD, CLI, ...args], {
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
  let asked = false;
  return {
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
      const heap = await new Promise<SettledMemory>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} did not report its memory`)), 10_000);
        const listener = (message: { memory?: SettledMemory }) => {
          if (!message.memory) return;
          clearTimeout(timer);
          child.off('message', listener);
          resolve(message.memory);
        };
        child.on('message', listener);
        child.send({ memory: true });
      });
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
}

/** VmRSS of /proc/<pid>/status, in bytes. */
export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}
