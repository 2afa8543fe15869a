import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { produceTick } from '../../src/scheduler/producer.ts';
import { waitForTicks } from '../../src/cli/run-cycle.ts';
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
import { createPipelineHarness, producerDeps, type PipelineHarness } from '../support/pipeline.ts';
import { startRedisSentinel, type TestRedisSentinel } from '../support/redis-sentinel.ts';

/**
 * The pipeline on Redis behind real sentinels (a master, a replica, three sentinels), and the
 * master dying in the middle of a cycle: the workers wait while the sentinels promote the replica,
 * then go on against the new master. Every job of the cycle must end succeeded, once.
 */
const { addresses, tokens, priceJobs } = failoverWatchlist(0xb000);
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
      // About 6 s of requests: the failover (2 s to notice, then the election) lands inside.
      ...FAILOVER_CYCLE_OPTIONS,
    },
    simulator: FAILOVER_CYCLE_SIMULATOR,
  });
  await addWatchedTokens(harness.database, tokens);
  await addWatchedAddresses(harness.database, addresses, {});
}, 120_000);
afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await harness?.close();
  await sentinel?.stop();
});
afterEach((context) => {
  if (context.task.result?.state === 'fail') console.log(output);
});

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

describe('on Redis Sentinel', () => {
  it('rides out the master dying mid-cycle: every job ends succeeded, exactly once', async () => {
    const tick = new Date(TICK);
    const expectedJobs = 2 * addresses.length + priceJobs; // positions and NFTs per address, the price batches
    const child = spawnCli(['run-once', '--tick', TICK], harness.env);
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    // Mid-cycle: some jobs are done, most are not.
    await untilRunsFinished(harness, tick, 10);
    let finishedAtSwitch = Number.NaN;
    const failover = sentinel.failover().then(async (switched) => {
      finishedAtSwitch = await finishedRuns(harness, tick);
      return switched;
    });
    const code = await exited;
    const { from, to } = await failover;
    expect(to.port).not.toBe(from.port);
    expect(code, output).toBe(0);
    // The master died mid-cycle: the cycle was not over when the new master was in place.
    expect(finishedAtSwitch, 'jobs finished when the new master was elected').toBeLessThan(expectedJobs);

    await expectEachJobSucceededOnce(harness, tick, {
      nfts: addresses.length,
      positions: addresses.length,
      prices: priceJobs,
    });
    await expectQueuesDrained(harness, { prices: priceJobs, positions: addresses.length, nfts: addresses.length });
  }, 120_000);

  it('two worker processes ride out a planned switch (SHUTDOWN of the master): every job once', async () => {
    const tick = new Date('2026-11-21T12:15:00Z');
    const requestsBefore = harness.simulator.stats().requests;
    await Promise.all([startWorker(), startWorker()]);
    const producer = producerDeps(harness);
    await produceTick(producer, 'positions', tick);
    await produceTick(producer, 'nfts', tick);
    await untilRunsFinished(harness, tick, 10);
    const { from, to } = await sentinel.failover('shutdown');
    expect(to.port).not.toBe(from.port);
    const finishedAtSwitch = await finishedRuns(harness, tick);
    const complete = await waitForTicks(producer, {
      streams: [
        { stream: 'positions', tick },
        { stream: 'nfts', tick },
      ],
      queues: ['positions', 'nfts'],
    });
    expect(complete, output).toBe(true);
    expect(finishedAtSwitch, 'jobs finished when the setup was whole again').toBeLessThan(2 * addresses.length);

    await expectEachJobSucceededOnce(
      harness,
      tick,
      { nfts: addresses.length, positions: addresses.length },
      requestsBefore,
    );
  }, 120_000);
});
