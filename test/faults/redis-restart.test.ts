import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { produceTick } from '../../src/scheduler/producer.ts';
import { startChaintap, startWorker, waitFor, type ChaintapProcess } from '../support/fault-processes.ts';
import { redisServerAvailable, startOwnRedis, type OwnRedis } from '../support/fault-redis-server.ts';
import {
  ALL_DATASETS,
  FAULT_TICK,
  compareWithReference,
  faultWatchlist,
  jobCount,
  expectDataOfReference,
  referenceRun,
  runOutcomes,
  seedWatchlist,
  waitForTickComplete,
  type Reference,
} from '../support/fault-scenario.ts';
import { createPipelineHarness, type PipelineHarness, producerDeps } from '../support/pipeline.ts';

// These scenarios restart Redis, so they run their own redis-server (append-only file on, as in
// production) on a free port; the shared Redis of the other tests is never touched.
if (!redisServerAvailable())
  throw new Error('the Redis fault scenarios need the redis-server binary on PATH (apt-get install redis-server)');

const watchlist = faultWatchlist({ tokens: 120, addresses: 60 });
const jobs = jobCount(watchlist);
const processes: ChaintapProcess[] = [];
const servers: OwnRedis[] = [];

afterAll(async () => {
  await Promise.all(processes.map((child) => child.stop('SIGKILL')));
  for (const server of servers) await server.destroy();
});

describe('Redis restarted mid-cycle', () => {
  let reference: Reference;
  let redis: OwnRedis;
  let harness: PipelineHarness;

  beforeAll(async () => {
    reference = await referenceRun(watchlist);
    redis = await startOwnRedis();
    servers.push(redis);
    harness = await createPipelineHarness({
      options: {
        REDIS_URL: redis.url,
        JOB_LOCK_MS: '10000',
        UPSTREAM_CONCURRENCY: '4',
        UPSTREAM_RPS: '20',
        JOB_ATTEMPTS: '5',
        JOB_BACKOFF_MS: '200',
      },
      simulator: { faults: { latencyMs: 150, latencyJitterMs: 150 } },
    });
    await seedWatchlist(harness.database, watchlist);
    // The test's own queue handles see the restart too; the worker under test logs it itself.
    for (const queue of Object.values(harness.queues)) queue.on('error', () => undefined);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('completes the cycle after the restart, with identical data', async () => {
    const worker = await startWorker('worker', harness.env);
    processes.push(worker);
    const producer = producerDeps(harness);
    for (const dataset of ALL_DATASETS) await produceTick(producer, dataset, FAULT_TICK);
    const finished = async () => {
      const progress = await Promise.all(ALL_DATASETS.map((dataset) => harness.tracker.progress(dataset, FAULT_TICK)));
      return progress.reduce((sum, p) => sum + p.finished, 0);
    };
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
