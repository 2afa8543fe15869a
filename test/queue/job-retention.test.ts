import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addWatchedAddresses } from '../../src/db/index.ts';
import type { JobResult } from '../../src/queue/jobs.ts';
import { queueKeyPrefix } from '../../src/queue/redis-keys.ts';
import { produceTick } from '../../src/scheduler/producer.ts';
import { createPipelineHarness, producerDeps, type PipelineHarness } from '../support/pipeline.ts';

const ADDRESSES = ['0x1', '0x2', '0x3'].map((short) => `0x${short.slice(2).padStart(64, '0')}`);
const TICK = new Date('2026-11-21T12:00:00Z');
const NEXT_TICK = new Date('2026-11-21T12:15:00Z');

let harness: PipelineHarness;
let worker: Worker;
/** Job ids the worker ran, in order (a job run twice shows twice). */
const ran: string[] = [];

beforeAll(async () => {
  harness = await createPipelineHarness();
  await addWatchedAddresses(harness.database, ADDRESSES, { datasets: ['positions'] });
  // Completes each job as a worker would (the tracker told), without calling the upstream.
  worker = new Worker(
    'positions',
    async (job): Promise<JobResult> => {
      ran.push(job.id!);
      await harness.tracker.finish('positions', new Date((job.data as { tick: string }).tick), job.id!);
      return { outcome: 'succeeded', rowsWritten: 0 };
    },
    { connection: harness.connection, prefix: queueKeyPrefix(harness.options.QUEUE_PREFIX, 'positions') },
  );
});
afterAll(async () => {
  await worker?.close();
  await harness?.close();
});

async function produceAndComplete(tick: Date): Promise<string[]> {
  const { jobIds } = await produceTick(producerDeps(harness), 'positions', tick);
  await vi.waitFor(async () => expect((await harness.tracker.progress('positions', tick)).complete).toBe(true), {
    timeout: 20_000,
    interval: 50,
  });
  return jobIds;
}

describe('completed jobs: kept an hour, for deduplication only', () => {
  it('a tick enqueued again within the hour adds nothing; after the next tick, nothing even once its jobs are gone', async () => {
    const first = await produceAndComplete(TICK);
    expect(ran).toEqual(first);
    // A second scheduler's producer of the same slot: the completed jobs still exist.
    await produceTick(producerDeps(harness), 'positions', TICK);
    expect(await harness.queues.positions.getJobCounts('waiting', 'completed')).toEqual({ waiting: 0, completed: 3 });

    // The next tick's jobs complete 61 minutes later (logical time): they remove the first
    // tick's completed jobs, as BullMQ trims by age whenever a job of the queue completes.
    const realNow = Date.now;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 61 * 60_000);
    try {
      await produceAndComplete(NEXT_TICK);
    } finally {
      vi.restoreAllMocks();
    }
    for (const id of first) expect(await harness.queues.positions.getJobState(id)).toBe('unknown');
    expect(await harness.queues.positions.getJobCounts('completed')).toEqual({ completed: 3 });

    // The older tick enqueued again: every target already has a newer job, so nothing runs twice.
    const again = await produceTick(producerDeps(harness), 'positions', TICK);
    expect(again.jobs).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ran).toHaveLength(6);
    expect(await harness.tracker.progress('positions', TICK)).toMatchObject({
      finished: 3,
      superseded: 0,
      complete: true,
    });
  });
});
