import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRawResponses } from '../../src/db/index.js';
import { runCli } from '../support/cli.js';
import { FAULT_TICK, faultWatchlist, jobCount, recordScenario, seedWatchlist } from '../support/fault-scenario.js';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.js';
import { countRows } from '../support/table-digest.js';

// The upstream rejects the key: every job fails at its first request, without retries, the
// operator is told it is an authentication problem, and nothing but failure records is written.
const WRONG_KEY = 'wrong-key-5d1e8a4b3c';
const watchlist = faultWatchlist({ tokens: 120, addresses: 10 });
const jobs = jobCount(watchlist);
let harness: PipelineHarness;

beforeAll(async () => {
  harness = await createPipelineHarness({
    apiKey: WRONG_KEY,
    options: { JOB_ATTEMPTS: '5', UPSTREAM_MAX_RETRIES: '3' },
  });
  await seedWatchlist(harness.database, watchlist);
});
afterAll(async () => harness?.close());

it('fails every job fast without retries, says it is an auth failure, writes nothing, never shows the key', async () => {
  const run = await runCli(['run-once', '--tick', FAULT_TICK.toISOString()], harness.env);
  expect(run.code).toBe(1);

  // Each job sent exactly one request: no in-request retry, no job retry. A key that is sent but not
  // accepted gets 403, as from the real service (upstream-reality.md).
  const stats = harness.simulator.stats();
  expect({ requests: stats.requests, unauthorized: stats.byStatus['403'] }).toEqual({
    requests: jobs,
    unauthorized: jobs,
  });
  const runs = await harness.database.sql<{ status: string; attempts: number; http_status: number; n: number }[]>`
    select status, attempts, http_status, count(*)::int as n from ingestion_runs group by 1, 2, 3`;
  expect(runs).toEqual([{ status: 'failed', attempts: 1, http_status: 403, n: jobs }]);
  const failedInQueues = await Promise.all(
    ['prices', 'positions', 'nfts'].map((q) => harness.queues[q as 'prices'].getJobCountByTypes('failed')),
  );
  expect(failedInQueues.reduce((sum, n) => sum + n, 0)).toBe(jobs);

  // The logs say what is wrong, in words an operator acts on.
  expect(run.stderr).toMatch(/upstream rejected the API key: check UPSTREAM_API_KEY/);
  const status = await runCli(['status'], harness.env);
  expect(status.code).toBe(2);
  expect(status.stdout).toMatch(/failed on authentication: the upstream rejects UPSTREAM_API_KEY/);

  // Nothing written but the failure records and the 403 bodies; the key is nowhere.
  const counts = await countRows(harness.database);
  const written = Object.entries(counts).filter(
    ([table, n]) =>
      n > 0 && !['watched_tokens', 'watched_addresses', 'ingestion_runs', 'raw_responses'].includes(table),
  );
  expect(written).toEqual([]);
  const [raw] = await harness.database
    .sql`select count(*)::int as n, count(*) filter (where http_status <> 403)::int as other from raw_responses`;
  expect(raw).toEqual({ n: expect.any(Number), other: 0 });
  for (const text of [run.stdout, run.stderr, status.stdout, status.stderr]) expect(text).not.toContain(WRONG_KEY);
  const stored = await readRawResponses(harness.database, { limit: 1000 });
  expect(stored).toHaveLength(raw!.n);
  expect(stored.filter((row) => row.body.includes(WRONG_KEY) || row.endpoint.includes(WRONG_KEY))).toEqual([]);
  const [leak] = await harness.database
    .sql`select count(*)::int as n from ingestion_runs where error like ${`%${WRONG_KEY}%`}`;
  expect(leak!.n).toBe(0);
  const dataRows = written.reduce((sum, [, n]) => sum + n, 0);
  recordScenario(
    'wrong API key',
    {
      rowsExpected: 0,
      rowsFound: dataRows,
      duplicates: 0,
      lost: 0,
      changed: 0,
      extra: dataRows,
      differences: {},
      tablesDiffering: [],
    },
    {
      jobs,
      requests: stats.requests,
      failedRuns: jobs,
    },
  );
});
