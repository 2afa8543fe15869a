import { afterAll, beforeAll, expect, it } from 'vitest';
import { positionJobs } from '../../src/scheduler/job-builders.ts';
import { enqueueJobs } from '../../src/scheduler/producer.ts';
import { createWorkerPool } from '../../src/worker/workers.ts';
import { startWorker, type ChaintapProcess } from '../support/fault-processes.ts';
import { settled } from '../support/job-settled.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { hang, startFaultServer, type FaultServer } from '../upstream/fault-server.ts';

// A job whose attempt takes its process down (killed here with SIGKILL while it waits for its answer,
// as an answer that exhausts the heap would) stalls: once its lock expires, BullMQ hands it to
// another worker. After JOB_MAX_STALLS stalls it is failed with its reason recorded, without being
// run again: it does not go from process to process for ever.
const ADDRESS = `0x${'d'.repeat(64)}`;
const SETTINGS = { JOB_LOCK_MS: '1000', JOB_MAX_STALLS: '1' };
let server: FaultServer;
let harness: PipelineHarness;
let worker: ChaintapProcess | undefined;

beforeAll(async () => {
  server = await startFaultServer();
  harness = await createPipelineHarness({ options: { UPSTREAM_BASE_URL: server.url, ...SETTINGS } });
});
afterAll(async () => {
  await worker?.stop();
  await harness?.close();
  await server?.close();
});

it('fails a job that stalled JOB_MAX_STALLS times, recording why, without running it again', async () => {
  server.fallback(hang);
  const tick = new Date('2026-11-21T12:00:00Z');
  const [planned] = positionJobs(
    [{ address: ADDRESS, chain: null, protocols: null, nftChain: 'ALL', includePnl: false }],
    tick,
    false,
  );
  worker = await startWorker('worker-killed', { ...harness.env, UPSTREAM_BASE_URL: server.url, ...SETTINGS });
  await enqueueJobs(harness, 'positions', [planned!]);
  const deadline = Date.now() + 20_000;
  while (server.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(server.requests).toHaveLength(1);
  expect((await worker.stop('SIGKILL')).signal).toBe('SIGKILL');

  // Another worker (this process's) finds the job stalled once its lock expired, and fails it.
  const pool = createWorkerPool({ ...harness, redis: harness.connection, queueNames: ['positions'] });
  let outcome: Awaited<ReturnType<typeof settled>>;
  try {
    outcome = await settled(harness.queues.positions, planned!.opts.jobId, 15_000);
  } finally {
    await pool.close();
  }

  const reason = /the job stalled 1 time \(JOB_MAX_STALLS 1\): the process running it died/;
  expect(outcome.state).toBe('failed');
  expect(outcome.job.failedReason).toMatch(reason);
  expect(server.requests).toHaveLength(1);
  const runs = await harness.database.sql`select status, error from ingestion_runs`;
  expect(runs).toEqual([{ status: 'failed', error: expect.stringMatching(reason) }]);
  expect(harness.logs.some((line) => line.includes('"msg":"job failed"') && reason.test(line))).toBe(true);
  // Its tick is finished: nothing waits for this job any more.
  expect(await harness.tracker.progress('positions', tick)).toMatchObject({ complete: true });
});
