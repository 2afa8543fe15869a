import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses } from '../../src/db/index.ts';
import { produceTick } from '../../src/scheduler/producer.ts';
import { waitForTicks } from '../../src/cli/run-cycle.ts';
import { SNAPSHOT_CHANNEL } from '../../src/queue/tick-notification.ts';
import { createWorkerPool, type WorkerPool } from '../../src/worker/workers.ts';
import { startWorker, waitFor, type ChaintapProcess } from '../support/fault-processes.ts';
import { createPipelineHarness, type PipelineHarness, producerDeps } from '../support/pipeline.ts';
import { tableDigest } from '../support/table-digest.ts';

/**
 * A worker process stopped (SIGSTOP) in the middle of its jobs for longer than JOB_LOCK_MS, and
 * resumed after another worker has taken the jobs over and finished them: it must stop, and write
 * nothing over the other's rows and run records, nor announce the tick again.
 */
const LOCK_MS = 1_000;
/** Each answer is held this long: the stopped worker's requests are in flight when it stops. */
const LATENCY_MS = 2_000;
const addresses = Array.from({ length: 3 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, 'b')}`);
const tick = new Date('2026-11-21T12:00:00Z');

let harness: PipelineHarness;
let stopped: ChaintapProcess | undefined;
let pool: WorkerPool | undefined;

beforeAll(async () => {
  harness = await createPipelineHarness({
    options: { JOB_LOCK_MS: String(LOCK_MS), UPSTREAM_CONCURRENCY: '8' },
    simulator: { faults: { latencyMs: LATENCY_MS } },
  });
  await addWatchedAddresses(harness.database, addresses, {});
});
afterAll(async () => {
  await stopped?.stop('SIGKILL');
  await pool?.close();
  await harness?.close();
});

const runRecords = () =>
  harness.database.sql<{ job_id: string; status: string; attempts: number; started_at: Date; finished_at: Date }[]>`
    select job_id, status, attempts, started_at, finished_at from ingestion_runs
    where dataset = 'positions' and tick = ${tick} order by target`;

describe('a worker that lost its jobs to another', () => {
  it('stops when resumed: the other worker’s rows and run records stand, and the tick is announced once', async () => {
    const announcements: string[] = [];
    const listener = await harness.database.sql.listen(SNAPSHOT_CHANNEL, (payload) => announcements.push(payload));
    try {
      stopped = await startWorker('stopped', harness.env);
      await produceTick(producerDeps(harness), 'positions', tick);
      // Its three requests are at the upstream, their answers held: it stops right there.
      await waitFor('the first worker’s requests', () => harness.simulator.stats().requests === addresses.length);
      stopped.child.kill('SIGSTOP');

      // Another worker finds the jobs stalled once their locks expire, and does them.
      pool = createWorkerPool({ ...producerDeps(harness), client: harness.client, queueNames: ['positions'] });
      const complete = await waitForTicks(producerDeps(harness), {
        streams: [{ stream: 'positions', tick }],
        queues: ['positions'],
      });
      expect(complete).toBe(true);
      await waitFor('the announcement', () => announcements.length === 1);
      const records = await runRecords();
      expect(records.map(({ status, attempts }) => ({ status, attempts }))).toEqual(
        addresses.map(() => ({ status: 'succeeded', attempts: 1 })),
      );
      const rows = await tableDigest(harness.database);
      const requests = harness.simulator.stats().requests;
      expect(requests).toBe(2 * addresses.length);

      // Resumed: its answers have arrived meanwhile, its locks are gone.
      stopped.child.kill('SIGCONT');
      await stopped.waitForLine(/its lock was lost/, 10_000);
      // Long enough for anything it would still do: renew, write, retry, announce.
      await new Promise((resolve) => setTimeout(resolve, 3 * LOCK_MS));

      expect(await runRecords()).toEqual(records);
      expect(await tableDigest(harness.database)).toEqual(rows);
      expect(announcements).toEqual([JSON.stringify({ dataset: 'positions', tick: tick.toISOString() })]);
      expect(harness.simulator.stats().requests).toBe(requests);
      expect(await harness.queues.positions.getJobCounts('completed', 'failed', 'waiting', 'delayed')).toEqual({
        completed: addresses.length,
        failed: 0,
        waiting: 0,
        delayed: 0,
      });
    } finally {
      await listener.unlisten();
    }
  });
});
