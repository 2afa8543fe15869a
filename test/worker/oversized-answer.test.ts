import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRawResponses } from '../../src/db/index.ts';
import { positionJobs } from '../../src/scheduler/job-builders.ts';
import { enqueueJobs } from '../../src/scheduler/producer.ts';
import { MAX_ERROR_BODY_BYTES } from '../../src/upstream/errors.ts';
import { createWorkerPool } from '../../src/worker/workers.ts';
import { settled } from '../support/job-settled.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { OPERATIONAL_TABLES, countRows } from '../support/table-digest.ts';
import { startFaultServer, streamBody, streamedText, type FaultServer } from '../upstream/fault-server.ts';

// A positions answer of 100 MB (a 100+ MB answer once took 994 MB of resident memory in run-once):
// the worker reads it to UPSTREAM_MAX_BODY_BYTES (8 MiB by default) and no further, quarantines its
// first 64 KiB with the reason, and writes nothing else. Real queue, Postgres, Redis and sender
// thread; the upstream is a server that streams the body as fast as it is read.
const ADDRESS = `0x${'b'.repeat(64)}`;
const BODY_BYTES = 100 * 1000 * 1000;
const MiB = 1024 * 1024;
let server: FaultServer;
let harness: PipelineHarness;

beforeAll(async () => {
  server = await startFaultServer();
  harness = await createPipelineHarness({ options: { UPSTREAM_BASE_URL: server.url, JOB_ATTEMPTS: '3' } });
});
afterAll(async () => {
  await harness?.close();
  await server?.close();
});

it('quarantines the first 64 KiB of a 100 MB answer with the reason, reads no more than the limit, writes nothing else', async () => {
  const { answer, sent } = streamBody(BODY_BYTES);
  server.fallback(answer);
  const tick = new Date('2026-11-21T12:00:00Z');
  const [planned] = positionJobs(
    [{ address: ADDRESS, chain: null, protocols: null, nftChain: 'ALL', includePnl: false }],
    tick,
    false,
  );
  const pool = createWorkerPool({ ...harness, redis: harness.connection, queueNames: ['positions'] });
  // Resident memory, sampled while the job runs: loosely bounded (reading the whole body would
  // hold 100 MB as bytes and again as text at least: 400 MB more were measured so).
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  let state: string;
  try {
    await enqueueJobs(harness, 'positions', [planned!]);
    ({ state } = await settled(harness.queues.positions, planned!.opts.jobId, 60_000));
  } finally {
    clearInterval(sampler);
    await pool.close();
  }

  expect(state).toBe('completed');
  const job = await harness.queues.positions.getJob(planned!.opts.jobId);
  expect(job!.returnvalue).toEqual({ outcome: 'quarantined', rowsWritten: 0 });
  expect(job!.attemptsMade).toBe(1);
  // One request, not read to its end: the connection was dropped past the limit.
  expect(server.requests).toHaveLength(1);
  await sent.ended;
  expect(sent.complete).toBe(false);
  expect(sent.written).toBeLessThan(40 * 1000 * 1000);
  expect(peak - baseline).toBeLessThan(128 * MiB);

  const prefix = streamedText(MAX_ERROR_BODY_BYTES);
  const quarantined = await harness.database.sql`
    select dataset, target, http_status, element_index, reason, body from quarantined_payloads`;
  expect(quarantined).toEqual([
    {
      dataset: 'positions',
      target: ADDRESS,
      http_status: 200,
      element_index: null,
      reason: expect.stringMatching(/answer larger than 8388608 bytes \(UPSTREAM_MAX_BODY_BYTES; reading stopped/),
      body: prefix,
    },
  ]);
  const runs = await harness.database.sql`select dataset, target, status, http_status, error from ingestion_runs`;
  expect(runs).toEqual([
    {
      dataset: 'positions',
      target: ADDRESS,
      status: 'quarantined',
      http_status: 200,
      error: quarantined[0]!.reason,
    },
  ]);
  // The raw response is the same first bytes, nothing more.
  const raw = await readRawResponses(harness.database, { limit: 10 });
  expect(raw.map((row) => [row.httpStatus, row.body])).toEqual([[200, prefix]]);
  const counts = await countRows(harness.database);
  const written = Object.entries(counts).filter(
    ([table, n]) =>
      n > 0 && !OPERATIONAL_TABLES.includes(table) && !['watched_tokens', 'watched_addresses'].includes(table),
  );
  expect(written).toEqual([]);
  expect(counts.raw_responses).toBe(1);
  expect(counts.quarantined_payloads).toBe(1);
});
