import { afterAll, describe, expect, it } from 'vitest';
import { startChaintap, waitFor, type ChaintapProcess } from '../support/fault-processes.ts';
import { startOwnRedis, type OwnRedis } from '../support/fault-redis-server.ts';
import {
  compareWithReference,
  expectDataOfReference,
  runOutcomes,
  waitForTickComplete,
} from '../support/fault-scenario.ts';
import { useFaultScenario } from '../support/fault-setup.ts';

// These scenarios restart Redis, so they run their own redis-server (append-only file on, as in
// production) on a free port; the shared Redis of the other tests is never touched.

const processes: ChaintapProcess[] = [];
const servers: OwnRedis[] = [];

afterAll(async () => {
  await Promise.all(processes.map((child) => child.stop('SIGKILL')));
  for (const server of servers) await server.destroy();
});

describe('Redis restarted mid-cycle', () => {
  const scenario = useFaultScenario({
    ownRedis: true,
    options: {
      JOB_LOCK_MS: '10000',
      UPSTREAM_CONCURRENCY: '4',
      UPSTREAM_RPS: '20',
      JOB_ATTEMPTS: '5',
      JOB_BACKOFF_MS: '200',
    },
    simulator: { faults: { latencyMs: 150, latencyJitterMs: 150 } },
  });

  it('completes the cycle after the restart, with identical data', async () => {
    const { harness, reference, jobs, finished } = scenario;
    const redis = scenario.redis!;
    const worker = await scenario.startWorker('worker');
    await scenario.produceTick();
    await waitFor('a third of the jobs finished', async () => (await finished()) >= Math.floor(jobs / 3), 60_000);
    const active = await harness.queues.positions.getJobCounts('active', 'wait');

    const downAt = Date.now();
    await redis.shutdown();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await redis.start();
    const downMs = Date.now() - downAt;

    await waitForTickComplete(harness, 120_000, [worker]);
    expect(await runOutcomes(harness.database)).toEqual({ succeeded: jobs });
    const { comparison } = await compareWithReference(harness.database, reference);
    expectDataOfReference('Redis restarted mid-cycle', comparison, { downMs, positionsJobsAtShutdown: active });
    // The worker rode it out: it neither crashed nor failed a job.
    expect(worker.child.exitCode).toBeNull();
    expect(worker.lines.filter((line) => /"final":true/.test(line))).toEqual([]);
  });
});

describe('Redis settings BullMQ needs in production', () => {
  it('warns clearly at start when maxmemory-policy is not noeviction, and not when it is', async () => {
    const evicting = await startOwnRedis({ maxmemoryPolicy: 'allkeys-lru' });
    servers.push(evicting);
    const env = {
      REDIS_URL: evicting.url,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
      QUEUE_PREFIX: 'chaintap-eviction-check',
      OPS_PORT: '0',
      // Never called: the worker has no job.
      UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
      UPSTREAM_API_KEY: 'not-used-here',
    };
    const worker = startChaintap('worker-evicting', ['worker'], env);
    processes.push(worker);
    const warning = await worker.waitForLine(/maxmemory-policy/, 60_000);
    expect(JSON.parse(warning)).toMatchObject({ level: 'warn', policy: 'allkeys-lru' });
    expect(warning).toMatch(/BullMQ needs \\"noeviction\\" or jobs can be lost/);
    await worker.waitForLine(/"msg":"chaintap running"/, 60_000);
    expect((await worker.stop('SIGTERM')).code).toBe(0);

    const noeviction = await startOwnRedis();
    servers.push(noeviction);
    const safe = startChaintap('worker-noeviction', ['worker'], { ...env, REDIS_URL: noeviction.url });
    processes.push(safe);
    await safe.waitForLine(/"msg":"chaintap running"/, 60_000);
    expect(safe.lines.filter((line) => /maxmemory-policy/.test(line))).toEqual([]);
    expect((await safe.stop('SIGTERM')).code).toBe(0);
  });
});
