import { expect, it } from 'vitest';
import { waitFor } from '../support/fault-processes.ts';
import {
  ALL_DATASETS,
  compareWithReference,
  expectDataOfReference,
  runOutcomes,
  waitForTickComplete,
} from '../support/fault-scenario.ts';
import { useFaultScenario } from '../support/fault-setup.ts';

// SIGTERM to a worker in the middle of a cycle: it takes no new job, lets the active ones finish,
// exits 0 within SHUTDOWN_GRACE_MS; another worker does the rest and nothing is lost or doubled.
const GRACE_MS = 15_000;
const scenario = useFaultScenario({
  options: {
    SHUTDOWN_GRACE_MS: String(GRACE_MS),
    JOB_LOCK_MS: '3000',
    UPSTREAM_CONCURRENCY: '4',
    UPSTREAM_RPS: '20',
    JOB_ATTEMPTS: '5',
    JOB_BACKOFF_MS: '200',
  },
  // Slow answers, so that jobs are in flight when the signal comes.
  simulator: { faults: { latencyMs: 400, latencyJitterMs: 400 } },
});

it('SIGTERM mid-cycle: active jobs finish, the process exits 0 within the grace period, nothing is lost', async () => {
  const { harness, reference, jobs, finished } = scenario;
  const first = await scenario.startWorker('worker-1');
  await scenario.produceTick();
  await waitFor('a quarter of the jobs finished', async () => (await finished()) >= Math.floor(jobs / 4), 60_000);

  const active = (await Promise.all(ALL_DATASETS.map((dataset) => harness.queues[dataset].getActive()))).flat();
  const activeIds = active.map((job) => job.id!);
  const signalledAt = Date.now();
  first.child.kill('SIGTERM');
  const exit = await first.exited;
  const exitMs = Date.now() - signalledAt;
  expect(exit).toEqual({ code: 0, signal: null });
  // It did not need the grace period's end to abort anything; a generous bound for a loaded machine.
  expect(first.lines.filter((line) => /grace period over/.test(line))).toEqual([]);
  expect(exitMs).toBeLessThan(GRACE_MS + 10_000);

  // The jobs that were active finished in that worker (no other worker exists yet): completed and succeeded.
  expect(activeIds.length).toBeGreaterThan(0);
  const states = await Promise.all(active.map((job) => harness.queues[job.queueName as 'prices'].getJobState(job.id!)));
  expect(states.every((state) => state === 'completed')).toBe(true);
  const [succeededActive] = await harness.database.sql`
    select count(*)::int as n from ingestion_runs where job_id = any(${activeIds}::text[]) and status = 'succeeded' and attempts = 1`;
  expect(succeededActive!.n).toBe(activeIds.length);
  // It stopped taking new jobs: the rest of the cycle was left for others.
  const finishedAtExit = await finished();
  expect(finishedAtExit).toBeLessThan(jobs);

  await scenario.startWorker('worker-2');
  await waitForTickComplete(harness, 120_000, scenario.workers);
  expect(await runOutcomes(harness.database)).toEqual({ succeeded: jobs });
  const { comparison } = await compareWithReference(harness.database, reference);
  expectDataOfReference('SIGTERM during a cycle', comparison, {
    activeAtSigterm: activeIds.length,
    exitMs,
    finishedAtExit,
  });
});
