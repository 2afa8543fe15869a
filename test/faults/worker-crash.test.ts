import postgres from 'postgres';
import { expect, it } from 'vitest';
import { watchAtomicity } from '../support/fault-atomicity.ts';
import { faultSeed, seededRandom, waitFor, type ChaintapProcess } from '../support/fault-processes.ts';
import {
  ALL_DATASETS,
  FAULT_TICK,
  compareWithReference,
  expectDataOfReference,
  runOutcomes,
  waitForTickComplete,
} from '../support/fault-scenario.ts';
import { useFaultScenario } from '../support/fault-setup.ts';

// Workers killed with SIGKILL twice at random points of a cycle; the next worker takes over the
// killed one's jobs once their locks expire (JOB_LOCK_MS), and the data end up exactly as without.
const scenario = useFaultScenario({
  options: {
    JOB_LOCK_MS: '3000',
    UPSTREAM_CONCURRENCY: '4',
    UPSTREAM_RPS: '20',
    JOB_ATTEMPTS: '5',
    JOB_BACKOFF_MS: '200',
  },
  simulator: { faults: { latencyMs: 150, latencyJitterMs: 150 } },
});

it('SIGKILL of a worker mid-cycle, twice, with another taking over: identical data, nothing partial ever visible', async () => {
  const seed = faultSeed();
  const random = seededRandom(seed);
  console.log(`[faults] worker-crash FAULTS_SEED=${seed}`);
  const { harness, reference, jobs, finished } = scenario;
  const watcherSql = postgres(harness.database.url, { max: 1, onnotice: () => {} });
  const watcher = watchAtomicity(watcherSql, FAULT_TICK, reference.batches, reference.view);
  const kills: { worker: string; atFinished: number; active: number }[] = [];
  let atomicity: Awaited<ReturnType<typeof watcher.stop>>;
  const killWhen = async (worker: ChaintapProcess, share: number) => {
    const target = Math.floor(jobs * share);
    await waitFor(
      `${target} of ${jobs} jobs finished before killing ${worker.name}`,
      async () => (await finished()) >= target,
      90_000,
    );
    const counts = await Promise.all(ALL_DATASETS.map((dataset) => harness.queues[dataset].getJobCounts('active')));
    const exit = await worker.stop('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    kills.push({
      worker: worker.name,
      atFinished: await finished(),
      active: counts.reduce((sum, c) => sum + (c.active ?? 0), 0),
    });
  };

  try {
    const first = await scenario.startWorker('worker-1');
    await scenario.produceTick();

    await killWhen(first, 0.1 + random() * 0.25);
    const second = await scenario.startWorker('worker-2');
    await killWhen(second, 0.5 + random() * 0.3);
    await scenario.startWorker('worker-3');
    await waitForTickComplete(harness, 120_000, scenario.workers);
  } finally {
    atomicity = await watcher.stop();
    await watcherSql.end();
  }

  // Each kill hit jobs in flight: their work was taken over, not skipped.
  expect(kills.map((kill) => kill.active > 0)).toEqual([true, true]);
  expect(await runOutcomes(harness.database)).toEqual({ succeeded: jobs });
  const { comparison, counts } = await compareWithReference(harness.database, reference);
  expectDataOfReference('worker SIGKILL twice', comparison, {
    seed,
    kills,
    atomicityObservations: atomicity.observations,
  });
  expect(counts.position_snapshot_points).toBeGreaterThan(0);
  expect(atomicity.violations).toEqual([]);
  expect(atomicity.observations).toBeGreaterThan(10);
});
