import { afterAll, beforeAll, expect, it } from 'vitest';
import { produceTick } from '../../src/scheduler/producer.ts';
import { startWorker, waitFor, type ChaintapProcess } from '../support/fault-processes.ts';
import {
  ALL_DATASETS,
  FAULT_TICK,
  compareWithReference,
  faultWatchlist,
  jobCount,
  expectDataOfReference,
  finishedJobs,
  referenceRun,
  runOutcomes,
  seedWatchlist,
  waitForTickComplete,
  type Reference,
} from '../support/fault-scenario.ts';
import { createPipelineHarness, type PipelineHarness, producerDeps } from '../support/pipeline.ts';

// SIGTERM to a worker in the middle of a cycle: it takes no new job, lets the active ones finish,
// exits 0 within SHUTDOWN_GRACE_MS; another worker does the rest and nothing is lost or doubled.
const GRACE_MS = 15_000;
const watchlist = faultWatchlist({ tokens: 120, addresses: 60 });
const jobs = jobCount(watchlist);
let reference: Reference;
let harness: PipelineHarness;
const workers: ChaintapProcess[] = [];

beforeAll(async () => {
  reference = await referenceRun(watchlist);
  harness = await createPipelineHarness({
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
  await seedWatchlist(harness.database, watchlist);
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop('SIGKILL')));
  await harness?.close();
});

it('SIGTERM mid-cycle: active jobs finish, the process exits 0 within the grace period, nothing is lost', async () => {
  const first = await startWorker('worker-1', harness.env);
  workers.push(first);
  const producer = producerDeps(harness);
  for (const dataset of ALL_DATASETS) await produceTick(producer, dataset, FAULT_TICK);
  const finished = () => finishedJobs(harness);
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

  const second = await startWorker('worker-2', harness.env);
  workers.push(second);
  await waitForTickComplete(harness, 120_000, workers);
  expect(await runOutcomes(harness.database)).toEqual({ succeeded: jobs });
  const { comparison } = await compareWithReference(harness.database, reference);
  expectDataOfReference('SIGTERM during a cycle', comparison, {
    activeAtSigterm: activeIds.length,
    exitMs,
    finishedAtExit,
  });
});
