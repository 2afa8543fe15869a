import { spawn } from 'node:child_process';
import { getPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { ALLOCATE, GC_TRACE_FLAGS, scavengesWhileAllocating } from '../support/gc-trace.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';

/**
 * The process-wide tuning the CLI applies (src/cli/process-tuning.ts), seen from outside a real
 * `chaintap worker`: its threads' nice values once the sender thread has started, and whether its
 * young-generation collections use V8's helper threads.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Loaded into the worker process before the CLI: once the sender thread has reported its id (and
 * the CLI has handled that report: its listener runs in the same turn), prints the nice value of
 * every thread, then allocates on the main thread between the gc-trace markers.
 */
const PROBE = `
  import { readdirSync } from 'node:fs';
  import { getPriority } from 'node:os';
  process.on('worker', (thread) => thread.on('message', (message) => {
    if (message?.type !== 'started') return;
    setImmediate(() => {
      const nice = readdirSync('/proc/self/task').map((tid) => [Number(tid), getPriority(Number(tid))]);
      console.log('probe ' + JSON.stringify({ sender: message.threadId, nice }));
      ${ALLOCATE}
    });
  }));
`;

interface WorkerProbe {
  senderNice: number;
  /** The nice values of every thread but the sender thread. */
  othersNice: number[];
  scavenges: { total: number; withHelpers: number };
}

describe.runIf(process.platform === 'linux')('process tuning of `chaintap worker`', () => {
  let database: TestDatabase;
  let redis: TestRedis;
  beforeAll(async () => {
    database = await createTestDatabase();
    redis = createTestRedis();
  });
  afterAll(async () => {
    await database?.drop();
    await redis?.cleanup();
  });

  /** Runs `chaintap worker` with `settings` until the probe has reported and allocated, then stops it. */
  async function probeWorker(settings: Record<string, string>): Promise<WorkerProbe> {
    const child = spawn(
      process.execPath,
      [...GC_TRACE_FLAGS, '--import', `data:text/javascript,${encodeURIComponent(PROBE)}`, CLI, 'worker'],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          DATABASE_URL: database.url,
          REDIS_URL: redis.url,
          QUEUE_PREFIX: redis.prefix,
          UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
          UPSTREAM_API_KEY: 'tuning-test-key',
          OPS_PORT: '0',
          LOG_LEVEL: 'warn',
          ...settings,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child.once('close', resolve));
    const deadline = Date.now() + 40_000;
    while (!/-- allocation ends --/.test(output) && child.exitCode === null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGTERM');
    await exited;
    const report = /probe (\{.*\})/.exec(output)?.[1];
    if (!report) throw new Error(`the worker never reported its threads:\n${output.slice(-3_000)}`);
    const { sender, nice } = JSON.parse(report) as { sender: number; nice: [number, number][] };
    return {
      senderNice: nice.find(([tid]) => tid === sender)![1],
      othersNice: nice.filter(([tid]) => tid !== sender).map(([, value]) => value),
      scavenges: scavengesWhileAllocating(output),
    };
  }

  // The worker starts at this process's nice value; the steps below must have room to show.
  const nice = getPriority(0);

  it('PROCESS_TUNING on (the default): every thread but the sender steps down UPSTREAM_SENDER_PRIORITY levels, and collections run without helpers', async () => {
    expect(nice).toBeLessThanOrEqual(12);
    const probe = await probeWorker({ UPSTREAM_SENDER_PRIORITY: '7' });
    expect(probe.senderNice).toBe(nice);
    // The main thread, V8's and libuv's helpers, tsx's loader.
    expect(probe.othersNice.length).toBeGreaterThan(4);
    expect(probe.othersNice).toEqual(Array(probe.othersNice.length).fill(nice + 7));
    expect(probe.scavenges.total).toBeGreaterThan(5);
    expect(probe.scavenges.withHelpers).toBe(0);
  });

  it("PROCESS_TUNING=false: no thread steps down, and collections use V8's helper threads", async () => {
    const probe = await probeWorker({ PROCESS_TUNING: 'false', UPSTREAM_SENDER_PRIORITY: '7' });
    expect(probe.senderNice).toBe(nice);
    expect(probe.othersNice).toEqual(Array(probe.othersNice.length).fill(nice));
    expect(probe.scavenges.total).toBeGreaterThan(5);
    expect(probe.scavenges.withHelpers).toBeGreaterThan(0);
  });
});

describe('process tuning, by command', () => {
  /** Runs tuneProcess for `command` (as main.ts does before it runs), then allocates. */
  async function scavengesAfterTuning(command: string[]): Promise<{ total: number; withHelpers: number }> {
    const tuning = new URL('../../src/cli/process-tuning.ts', import.meta.url).href;
    const script = `
      import { Command } from 'commander';
      const { tuneProcess } = await import(${JSON.stringify(tuning)});
      const program = new Command('chaintap');
      const action = ${JSON.stringify(command)}.reduce((parent, name) => parent.command(name), program);
      tuneProcess(action, {});
      ${ALLOCATE}
    `;
    const child = spawn(process.execPath, [...GC_TRACE_FLAGS, '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    await new Promise((resolve) => child.once('close', resolve));
    return scavengesWhileAllocating(output);
  }

  it('tunes the commands that call the upstream (`backfill prices`), not the others (`simulate`)', async () => {
    const backfill = await scavengesAfterTuning(['backfill', 'prices']);
    expect(backfill.total).toBeGreaterThan(5);
    expect(backfill.withHelpers).toBe(0);
    // The simulator the benchmarks run as `chaintap simulate` keeps V8's defaults.
    const simulate = await scavengesAfterTuning(['simulate']);
    expect(simulate.total).toBeGreaterThan(5);
    expect(simulate.withHelpers).toBeGreaterThan(0);
  });
});
