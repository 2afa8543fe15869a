import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.js';
import { MAX_COINS_PER_PRICE_REQUEST } from '../../src/upstream/client.js';
import { produceTick } from '../../src/scheduler/producer.js';
import { waitForTicks } from '../../src/cli/run-cycle.js';
import { spawnCli } from '../support/cli.js';
import { redisServerAvailable } from '../support/fault-redis-server.js';
import { createPipelineHarness, producerDeps, type PipelineHarness } from '../support/pipeline.js';
import { startRedisSentinel, type TestRedisSentinel } from '../support/redis-sentinel.js';

/**
 * The pipeline on Redis behind real sentinels (a master, a replica, three sentinels), and the
 * master dying in the middle of a cycle: the workers wait while the sentinels promote the replica,
 * then go on against the new master. Every job of the cycle must end succeeded, once.
 */
const ADDRESSES = Array.from({ length: 30 }, (_, i) => `0x${(0xb000 + i).toString(16).padStart(64, '0')}`);
const coin = (i: number) => `0x${(0x1000 + i).toString(16).padStart(64, '0')}::coin${i}::COIN${i}`;
const TOKENS = ['0x2::sui::SUI', ...Array.from({ length: 39 }, (_, i) => coin(i))];
const TICK = '2026-11-21T12:00:00Z';

let sentinel: TestRedisSentinel;
let harness: PipelineHarness;
let output = '';
const workers: ChildProcess[] = [];

beforeAll(async () => {
  sentinel = await startRedisSentinel({ replicas: 1, sentinels: 3 });
  harness = await createPipelineHarness({
    options: {
      REDIS_URL: '',
      REDIS_SENTINELS: sentinel.sentinelsSetting,
      REDIS_SENTINEL_NAME: sentinel.name,
      // About 6 s of requests: the failover (a second to notice, then the election) lands inside.
      UPSTREAM_RATE: '12/s',
      UPSTREAM_CONCURRENCY: '4',
      OPS_PORT: '0',
    },
    simulator: { faults: { latencyMs: 50 } },
  });
  await addWatchedTokens(harness.database, TOKENS);
  await addWatchedAddresses(harness.database, ADDRESSES, {});
}, 120_000);
afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await harness?.close();
  await sentinel?.stop();
});
afterEach((context) => {
  if (context.task.result?.state === 'fail') writeFileSync('/tmp/redis-sentinel-test.log', output);
});

async function finishedRuns(tick = TICK): Promise<number> {
  const [row] = await harness.database.sql<{ n: number }[]>`
    select count(*)::int as n from ingestion_runs where tick = ${new Date(tick)}`;
  return row!.n;
}

/** `chaintap worker` as its own process, resolved once it runs. */
function startWorker(): Promise<ChildProcess> {
  const child = spawnCli(['worker'], harness.env);
  workers.push(child);
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk) => {
      output += chunk;
      if (output.includes('chaintap running')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${output}`)));
  });
}

describe.skipIf(!redisServerAvailable())('on Redis Sentinel', () => {
  it('rides out the master dying mid-cycle: every job ends succeeded, exactly once', async () => {
    const priceJobs = Math.ceil(TOKENS.length / MAX_COINS_PER_PRICE_REQUEST);
    const expectedJobs = 2 * ADDRESSES.length + priceJobs; // positions and NFTs per address, the price batches
    const child = spawnCli(['run-once', '--tick', TICK], harness.env);
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    // Mid-cycle: some jobs are done, most are not.
    while ((await finishedRuns()) < 10) await new Promise((resolve) => setTimeout(resolve, 50));
    let finishedAtSwitch = Number.NaN;
    const failover = sentinel.failover().then(async (switched) => {
      finishedAtSwitch = await finishedRuns();
      return switched;
    });
    const code = await exited;
    const { from, to } = await failover;
    expect(to.port).not.toBe(from.port);
    expect(code, output).toBe(0);
    // The master died mid-cycle: the cycle was not over when the new master was in place.
    expect(finishedAtSwitch, 'jobs finished when the new master was elected').toBeLessThan(expectedJobs);

    const runs = await harness.database.sql<{ dataset: string; status: string; attempts: number; n: number }[]>`
      select dataset, status, attempts, count(*)::int as n from ingestion_runs
      where tick = ${new Date(TICK)} group by 1, 2, 3 order by 1`;
    expect(runs).toEqual([
      { dataset: 'nfts', status: 'succeeded', attempts: 1, n: ADDRESSES.length },
      { dataset: 'positions', status: 'succeeded', attempts: 1, n: ADDRESSES.length },
      { dataset: 'prices', status: 'succeeded', attempts: 1, n: priceJobs },
    ]);
    // No job ran twice: one upstream request per job, and none retried.
    expect(harness.simulator.stats().requests).toBe(expectedJobs);
    // And the new master holds every job as completed, none failed or left behind.
    for (const dataset of ['prices', 'positions', 'nfts'] as const) {
      const counts = await harness.queues[dataset].getJobCounts('completed', 'failed', 'active', 'waiting', 'delayed');
      expect(counts, dataset).toEqual({
        completed: dataset === 'prices' ? priceJobs : ADDRESSES.length,
        failed: 0,
        active: 0,
        waiting: 0,
        delayed: 0,
      });
    }
  }, 120_000);

  it('two worker processes ride out a planned switch (SHUTDOWN of the master): every job once', async () => {
    const tick = new Date('2026-11-21T12:15:00Z');
    const requestsBefore = harness.simulator.stats().requests;
    await Promise.all([startWorker(), startWorker()]);
    const producer = producerDeps(harness);
    await produceTick(producer, 'positions', tick);
    await produceTick(producer, 'nfts', tick);
    while ((await finishedRuns(tick.toISOString())) < 10) await new Promise((resolve) => setTimeout(resolve, 50));
    const { from, to } = await sentinel.failover('shutdown');
    expect(to.port).not.toBe(from.port);
    const finishedAtSwitch = await finishedRuns(tick.toISOString());
    const complete = await waitForTicks(producer, {
      streams: [
        { stream: 'positions', tick },
        { stream: 'nfts', tick },
      ],
      queues: ['positions', 'nfts'],
    });
    expect(complete, output).toBe(true);
    expect(finishedAtSwitch, 'jobs finished when the setup was whole again').toBeLessThan(2 * ADDRESSES.length);

    const runs = await harness.database.sql<{ dataset: string; status: string; attempts: number; n: number }[]>`
      select dataset, status, attempts, count(*)::int as n from ingestion_runs
      where tick = ${tick} group by 1, 2, 3 order by 1`;
    expect(runs).toEqual([
      { dataset: 'nfts', status: 'succeeded', attempts: 1, n: ADDRESSES.length },
      { dataset: 'positions', status: 'succeeded', attempts: 1, n: ADDRESSES.length },
    ]);
    expect(harness.simulator.stats().requests - requestsBefore).toBe(2 * ADDRESSES.length);
  }, 120_000);
});
