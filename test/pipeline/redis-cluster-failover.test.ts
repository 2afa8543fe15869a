import { writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.js';
import { queueKeyPrefix } from '../../src/queue/redis-keys.js';
import { MAX_COINS_PER_PRICE_REQUEST } from '../../src/upstream/client.js';
import { spawnCli } from '../support/cli.js';
import { redisServerAvailable } from '../support/fault-redis-server.js';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.js';
import { startRedisCluster, type TestRedisCluster } from '../support/redis-cluster.js';
import { redisCommand } from '../support/redis-process.js';

/**
 * The pipeline on a Redis Cluster of three shards, a master and a replica each, and the master of
 * the positions queue's shard dying in the middle of a `chaintap run-once`: the cluster promotes
 * its replica by itself, the processes wait meanwhile, then go on against the new master. Every job
 * of the cycle must end succeeded, once, as with Sentinel (redis-sentinel.test.ts).
 */
const PREFIX = 'chaintap';
const ADDRESSES = Array.from({ length: 30 }, (_, i) => `0x${(0xc000 + i).toString(16).padStart(64, '0')}`);
const coin = (i: number) => `0x${(0x1000 + i).toString(16).padStart(64, '0')}::coin${i}::COIN${i}`;
const TOKENS = ['0x2::sui::SUI', ...Array.from({ length: 39 }, (_, i) => coin(i))];
const TICK = '2026-11-21T12:00:00Z';
/** A key of the positions queue: its master is the one that dies. */
const POSITIONS_KEY = `${queueKeyPrefix(PREFIX, 'positions')}:positions:meta`;

let cluster: TestRedisCluster;
let harness: PipelineHarness;
let output = '';

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  harness = await createPipelineHarness({
    options: {
      REDIS_URL: '',
      REDIS_CLUSTER_NODES: cluster.nodesSetting,
      QUEUE_PREFIX: PREFIX,
      // About 6 s of requests: the failover (2 s to notice, then the election) lands inside.
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
  await harness?.close();
  await cluster?.stop();
});
afterEach((context) => {
  if (context.task.result?.state === 'fail') writeFileSync('/tmp/redis-cluster-failover-test.log', output);
});

async function finishedRuns(): Promise<number> {
  const [row] = await harness.database.sql<{ n: number }[]>`
    select count(*)::int as n from ingestion_runs where tick = ${new Date(TICK)}`;
  return row!.n;
}

describe.skipIf(!redisServerAvailable())('on a Redis Cluster with replicas', () => {
  it("rides out a shard's master dying mid-cycle: every job ends succeeded, exactly once", async () => {
    const priceJobs = Math.ceil(TOKENS.length / MAX_COINS_PER_PRICE_REQUEST);
    const expectedJobs = 2 * ADDRESSES.length + priceJobs; // positions and NFTs per address, the price batches
    const shard = await cluster.nodeOfKey(POSITIONS_KEY);
    const child = spawnCli(['run-once', '--tick', TICK], harness.env);
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    // Mid-cycle: some jobs are done, most are not.
    while ((await finishedRuns()) < 10) await new Promise((resolve) => setTimeout(resolve, 50));
    const finishedAtKill = await finishedRuns();
    let finishedAtSwitch = Number.NaN;
    const failover = cluster.failoverMasterOf(POSITIONS_KEY).then(async (switched) => {
      finishedAtSwitch = await finishedRuns();
      return switched;
    });
    const code = await exited;
    const { from, to } = await failover;
    expect(to.port).not.toBe(from.port);
    expect(code, output).toBe(0);
    // The master died mid-cycle: the cycle was not over when the replica had taken over.
    expect(finishedAtKill).toBeLessThan(expectedJobs);
    expect(finishedAtSwitch, 'jobs finished when the replica was promoted').toBeLessThan(expectedJobs);
    // The positions queue lives on the promoted replica now, which answers as a master.
    expect(cluster.nodes[shard]).toEqual(to);
    expect(await cluster.nodeOfKey(POSITIONS_KEY)).toBe(shard);
    expect(((await redisCommand(to.port, 'ROLE')) as unknown[])[0]).toBe('master');

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
    // And the cluster holds every job as completed, none failed or left behind.
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
});
