import { writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import type { SimulatorStats } from '../../src/simulator/index.ts';
import type { WindowKind } from '../../src/simulator/request-window.ts';
import { spawnChaintap, stopChild } from './worker-processes.ts';

/** `chaintap simulate` as a process of its own, read and reset through its /_simulator/ endpoints. */
export interface SimulatorProcess {
  url: string;
  pid: number;
  /** What was done to its CPU priority, for the notes. */
  priority: string;
  stats(): Promise<SimulatorStats>;
  resetStats(): Promise<void>;
  close(): Promise<void>;
}

export interface SimulatorProcessSettings {
  apiKey: string;
  latencyMs: number;
  /** Answer 429 past this many requests in a window (default: any trailing second, open at its far end). */
  rateLimit: number;
  rateLimitWindowMs?: number;
  rateLimitWindow?: WindowKind;
  fixedTimeMs: number;
  /** The living world: wallets change at their habit's events (docs/simulator.md). */
  habits?: boolean;
}

/**
 * Starts the simulated upstream in its own process, so that nothing the benchmark process does
 * (enqueueing 20,000 jobs, polling) delays the moment it sees a request arrive: its strict window
 * counts arrivals as its own event loop gets to them. It stands for a service on machines of its
 * own, so it also runs in a session of its own: Linux (autogroup) then shares the CPUs between it
 * and the benchmark's processes as between two programs, instead of among the busy workers' threads.
 * Measured in the addresses scenario: seconds with an event-loop lag p99 of 20 ms or more went from
 * 36-68 per run to 6, the median p99 from 13-17 ms to 9 ms.
 *
 * A real upstream counts a request when it reaches its edge, whatever our processes are doing. On
 * this machine the simulator shares two cores with the workers and Postgres, and a simulator kept
 * waiting for a CPU counts the requests that queued meanwhile as arriving together: more than its
 * limit in some trailing second, answered 429, although they left evenly spaced. So it runs at a
 * higher priority (nice -10, for the process and its autogroup) where the benchmark may set one
 * (as root); otherwise the notes say so. Measured (addresses, 10,000): 3-14 429s at the same
 * priority as the workers, 0 with it.
 */
export async function startSimulatorProcess(settings: SimulatorProcessSettings): Promise<SimulatorProcess> {
  const child = spawnChaintap(
    [
      'simulate',
      '--port',
      '0',
      '--latency-ms',
      String(settings.latencyMs),
      '--rate-limit',
      String(settings.rateLimit),
      '--rate-limit-window-ms',
      String(settings.rateLimitWindowMs ?? 1000),
      '--rate-limit-window',
      settings.rateLimitWindow ?? 'sliding',
      '--fixed-time',
      new Date(settings.fixedTimeMs).toISOString(),
      '--fault-seed',
      '1',
      // Answers shaped as the real service sends them (upstream-reality.md).
      '--real-shapes',
      ...(settings.habits ? ['--habits'] : []),
    ],
    { UPSTREAM_API_KEY: settings.apiKey },
    { ownSession: true },
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the simulator did not start: ${output}`)), 30_000);
    const onData = (chunk: unknown) => {
      output += String(chunk);
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the simulator exited with ${code}: ${output}`)));
  });
  const priority = raisePriority(child.pid!);
  const control = async (method: 'GET' | 'POST', path: string): Promise<unknown> => {
    const response = await fetch(`${url}/_simulator/${path}`, { method, headers: { 'x-api-key': settings.apiKey } });
    if (!response.ok) throw new Error(`simulator ${method} ${path}: HTTP ${response.status}`);
    return response.json();
  };
  return {
    url,
    pid: child.pid!,
    priority,
    stats: async () => (await control('GET', 'stats')) as SimulatorStats,
    resetStats: async () => void (await control('POST', 'stats/reset')),
    close: () => stopChild(child, 10_000),
  };
}

const SIMULATOR_NICE = -10;

/** Raises the process's priority (and its autogroup's, on Linux); says what it could do. */
function raisePriority(pid: number): string {
  try {
    setPriority(pid, SIMULATOR_NICE);
  } catch (error) {
    return `simulator at the workers' priority (raising it failed: ${(error as Error).message})`;
  }
  try {
    // With autogroup scheduling, CPU time is shared between sessions first: the session's nice counts.
    writeFileSync(`/proc/${pid}/autogroup`, String(SIMULATOR_NICE));
    return `simulator at nice ${SIMULATOR_NICE} (process and autogroup)`;
  } catch {
    return `simulator at nice ${SIMULATOR_NICE} (process; no autogroup)`;
  }
}
