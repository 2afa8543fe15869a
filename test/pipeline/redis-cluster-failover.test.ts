import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { queueKeyPrefix } from '../../src/queue/redis-keys.ts';
import { spawnCli } from '../support/cli.ts';
import {
  expectEachJobSucceededOnce,
  expectQueuesDrained,
  FAILOVER_CYCLE_OPTIONS,
  FAILOVER_CYCLE_SIMULATOR,
  failoverWatchlist,
  finishedRuns,
  untilRunsFinished,
} from '../support/failover-cycle.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { startRedisCluster, type TestRedisCluster } from '../support/redis-cluster.ts';
import { redisCommand } from '../support/redis-process.ts';

/**
 * The pipeline on a Redis Cluster of three shards, a master and a replica each, and the master of
 * the positions queue's shard dying in the middle of a `chaintap run-once`: the cluster promotes
 * its replica by itself, the processes wait meanwhile, then go on against the new master. Every job
 * of the cycle must end succeeded, once, as with Sentinel (redis-sentinel.test.ts).
 */
const PREFIX = 'chaintap';
const { addresses, tokens, priceJobs } = failoverWatchlist(0xc000);
const TICK = '2026-11-21T12:00:00Z';
const tick = new Date(TICK);
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
      ...FAILOVER_CYCLE_OPTIONS,
    },
    simulator: FAILOVER_CYCLE_SIMULATOR,
  });
  await addWatchedTokens(harness.database, tokens);
  await addWatchedAddresses(harness.database, addresses, {});
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await cluster?.stop();
});
afterEach((context) => {
  if (context.task.result?.state === 'fail') console.log(output);
});

describe('on a Redis Cluster with replicas', () => {
  it("rides out a shard's master dying mid-cycle: every job ends succeeded, exactly once", async () => {
    const expectedJobs = 2 * addresses.length + priceJobs; // positions and NFTs per address, the price batches
    const shard = await cluster.nodeOfKey(POSITIONS_KEY);
    const child = spawnCli(['run-once', '--tick', TICK], harness.env);
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    // Mid-cycle: some jobs are done, most are not.
    await untilRunsFinished(harness, tick, 10);
    const finishedAtKill = await finishedRuns(harness, tick);
    let finishedAtSwitch = Number.NaN;
    const failover = cluster.failoverMasterOf(POSITIONS_KEY).then(async (switched) => {
      finishedAtSwitch = await finishedRuns(harness, tick);
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

    await expectEachJobSucceededOnce(harness, tick, {
      nfts: addresses.length,
      positions: addresses.length,
      prices: priceJobs,
    });
    await expectQueuesDrained(harness, { prices: priceJobs, positions: addresses.length, nfts: addresses.length });
  }, 120_000);
});
