import type { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJobs } from '../../src/scheduler/producer.ts';
import { positionJobs, priceJobs, type PlannedJob } from '../../src/scheduler/job-builders.ts';
import type { UpstreamClient } from '../../src/upstream/client.ts';
import type { TokenPriceResponse } from '../../src/upstream/schemas.ts';
import { createWorkerPool } from '../../src/worker/workers.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';

// Errors decide a job's fate through a real queue, Postgres and the simulated upstream. The only
// mock is the fault: a client whose price answers reach the normalizer changed.
let harness: PipelineHarness;
beforeAll(async () => {
  harness = await createPipelineHarness({ options: { JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: '50' } });
});
afterAll(async () => harness?.close());

const SUI = '0x2::sui::SUI';

/** The harness's client, with `change` applied to each price answer before it is normalized. */
function changingPrices(change: (data: TokenPriceResponse) => unknown): UpstreamClient {
  const client = harness.client;
  return {
    ...client,
    async fetchTokenPriceBatch(coinTypes, opts) {
      const response = await client.fetchTokenPriceBatch(coinTypes, opts);
      return { ...response, data: change(response.data) as TokenPriceResponse };
    },
  };
}

/** Runs one job through a worker pool with `client` until it has completed or failed for good. */
async function runJob(queue: 'prices' | 'positions', planned: PlannedJob<unknown>, client: UpstreamClient) {
  const pool = createWorkerPool({ ...harness, redis: harness.connection, client, queueNames: [queue] });
  try {
    await enqueueJobs(harness, queue, [planned]);
    return await settled(harness.queues[queue], planned.opts.jobId);
  } finally {
    await pool.close();
  }
}

async function settled(queue: Queue, id: string, timeoutMs = 30_000): Promise<{ job: Job; state: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await queue.getJobState(id);
    if (state === 'completed' || state === 'failed') return { job: (await queue.getJob(id))!, state };
    if (Date.now() > deadline) throw new Error(`job ${id} still ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function runOf(dataset: string, target: string, tick: Date) {
  const [run] = await harness.database.sql<{ status: string; attempts: number; error: string | null }[]>`
    select status, attempts, error from ingestion_runs where dataset = ${dataset} and target = ${target} and tick = ${tick}`;
  return run;
}

async function quarantinedCount(target: string, tick: Date): Promise<number> {
  const [row] = await harness.database.sql<{ n: number }[]>`
    select count(*)::int as n from quarantined_payloads where target = ${target} and tick = ${tick}`;
  return row!.n;
}

describe('an error in a job', () => {
  it('a bug in a normalizer (a TypeError) fails the job loudly after its attempts and quarantines nothing', async () => {
    const tick = new Date('2026-11-21T12:00:00Z');
    const [planned] = priceJobs([SUI], tick);
    const target = planned!.data.target;
    // A data shape the normalizer does not expect: it throws a TypeError of its own, as a bug would.
    const buggy = changingPrices((data) => ({ ...data, data: null }));
    const logsBefore = harness.logs.length;

    const { job, state } = await runJob('prices', planned!, buggy);

    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(3);
    expect(job.failedReason).toMatch(/of null/);
    expect(await quarantinedCount(target, tick)).toBe(0);
    expect(await runOf('prices', target, tick)).toEqual({
      status: 'failed',
      attempts: 3,
      error: expect.stringMatching(/^TypeError: .*of null/),
    });
    // Said at error level, with the stack that leads to the normalizer, once per attempt.
    const errors = harness.logs
      .slice(logsBefore)
      .map((line) => JSON.parse(line) as { level: string; msg: string; err?: { type: string; stack: string } })
      .filter((line) => line.level === 'error' && /normalizer failed/.test(line.msg));
    expect(errors).toHaveLength(3);
    expect(errors[0]!.err).toMatchObject({ type: 'TypeError', stack: expect.stringMatching(/normalizeTokenPrices/) });
  });

  it('a payload the normalizer cannot read (UnreadablePayloadError) is still quarantined, at the first attempt', async () => {
    const tick = new Date('2026-11-21T12:05:00Z');
    const [planned] = priceJobs([SUI], tick);
    const target = planned!.data.target;
    const nonsenseTime = changingPrices((data) => ({
      ...data,
      data: data.data.map((entry) => ({ ...(entry as object), timestamp: 17 })),
    }));

    const { job, state } = await runJob('prices', planned!, nonsenseTime);

    expect(state).toBe('completed');
    expect(job.attemptsMade).toBe(1);
    expect(await quarantinedCount(target, tick)).toBe(1);
    // Its one element was unreadable: quarantined as that element, with its index.
    const [row] = await harness.database.sql<{ element_index: number; body: string }[]>`
      select element_index, body from quarantined_payloads where target = ${target} and tick = ${tick}`;
    expect(row!.element_index).toBe(0);
    expect(JSON.parse(row!.body)).toMatchObject({ timestamp: 17 });
    expect(await runOf('prices', target, tick)).toEqual({
      status: 'quarantined',
      attempts: 1,
      error: expect.stringMatching(/^cannot normalize: timestamp 17 is .*not a plausible price time/),
    });
  });

  it('an address the client refuses to request (InvalidInputError) fails the job at its first attempt, with no request', async () => {
    const tick = new Date('2026-11-21T12:10:00Z');
    const address = '0xnot-hex';
    const [planned] = positionJobs(
      [{ address, chain: null, protocols: null, nftChain: 'ALL', includePnl: false }],
      tick,
      false,
    );
    harness.simulator.resetStats();

    const { job, state } = await runJob('positions', planned!, harness.client);

    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(await runOf('positions', address, tick)).toEqual({
      status: 'failed',
      attempts: 1,
      error: expect.stringMatching(/^InvalidInputError: invalid address "0xnot-hex"/),
    });
    expect(harness.simulator.stats().requests).toBe(0);
  });

  it('a 429 puts the job back until the pause ends, without spending an attempt', async () => {
    const tick = new Date('2026-11-21T12:15:00Z');
    const [planned] = priceJobs([SUI], tick);
    const target = planned!.data.target;
    harness.simulator.resetStats();
    harness.simulator.setFaults({ error429Rate: 1, retryAfterSeconds: 1 });
    const pool = createWorkerPool({ ...harness, redis: harness.connection, queueNames: ['prices'] });
    try {
      const started = Date.now();
      await enqueueJobs(harness, 'prices', [planned!]);
      while (!harness.simulator.stats().byStatus['429']) await new Promise((resolve) => setTimeout(resolve, 5));
      harness.simulator.setFaults({ error429Rate: 0 });
      const job = (await harness.queues.prices.getJob(planned!.opts.jobId))!;
      // Waiting for the pause's end (not failed, not retried with a backoff).
      await expect.poll(() => job.getState()).toBe('delayed');
      const { job: done, state } = await settled(harness.queues.prices, planned!.opts.jobId);
      expect(state).toBe('completed');
      expect(done.attemptsMade).toBe(1);
      expect(done.finishedOn! - started).toBeGreaterThanOrEqual(1000);
    } finally {
      await pool.close();
      harness.simulator.setFaults({ error429Rate: 0 });
    }
    expect(harness.simulator.stats().byStatus).toEqual({ '200': 1, '429': 1 });
    expect(await runOf('prices', target, tick)).toEqual({ status: 'succeeded', attempts: 1, error: null });
  });
});
