import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRawResponses } from '../../src/db/index.ts';
import { runCli } from '../support/cli.ts';
import { FAULT_TICK, faultWatchlist, jobCount, recordScenario, seedWatchlist } from '../support/fault-scenario.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { countRows, dataTables } from '../support/table-digest.ts';

// The upstream rejects the key: every job fails at its first request, without retries, the
// operator is told it is an authentication problem, and nothing but failure records is written.
// The upstream echoes the key it rejects (in the body as it is, JSON-escaped and URL-encoded, and in
// a header), so that a form of it that gets through would show.
const WRONG_KEY = 'wrong/key+5d1e"8a4b\\3c=~';
const watchlist = faultWatchlist({ tokens: 120, addresses: 10 });
const jobs = jobCount(watchlist);
let harness: PipelineHarness;

/** The key as texts may carry it: as it is, JSON-escaped (once, twice, with \/ and with \u), URL-encoded (once, twice). */
function keyForms(key: string): string[] {
  const json = JSON.stringify(key).slice(1, -1);
  const url = encodeURIComponent(key);
  const forms = [
    key,
    json,
    JSON.stringify(json).slice(1, -1),
    json.replaceAll('/', '\\/'),
    key.replace(/[^A-Za-z0-9._~-]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`),
    url,
    url.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
    encodeURIComponent(url),
  ];
  // Each form differs from the key: the check below would catch each alone.
  expect(new Set(forms).size).toBe(forms.length);
  return forms;
}
const FORMS = keyForms(WRONG_KEY);
/** The forms of the key that `text` holds. */
const leaks = (text: string) => FORMS.filter((form) => text.includes(form));

beforeAll(async () => {
  harness = await createPipelineHarness({
    apiKey: WRONG_KEY,
    options: { JOB_ATTEMPTS: '5', UPSTREAM_MAX_RETRIES: '2' },
    simulator: { echoKey: true },
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

  // The key is nowhere, in no form: not in what was logged or printed,
  for (const text of [run.stdout, run.stderr, status.stdout, status.stderr]) expect(leaks(text)).toEqual([]);
  // nor stored: the bodies kept (each had the key in every form, now redacted), and every row of every table,
  const stored = await readRawResponses(harness.database, { limit: 1000 });
  expect(stored).toHaveLength(raw!.n);
  expect(stored.every((row) => row.body.includes('[redacted]'))).toBe(true);
  expect(stored.flatMap((row) => leaks(`${row.endpoint}\n${row.body}`))).toEqual([]);
  for (const table of await dataTables(harness.database)) {
    const rows = await harness.database.sql.unsafe(`select t::text as row from "${table}" t`);
    expect({ table, leaks: rows.flatMap((row) => leaks(row.row as string)) }).toEqual({ table, leaks: [] });
  }
  // nor exported: the stored responses as `chaintap raw` shows them.
  const list = await runCli(['raw', 'list', '--limit', '1000'], harness.env);
  const show = await runCli(['raw', 'show', ...stored.slice(0, 20).map((row) => String(row.id))], harness.env);
  expect([list.code, show.code]).toEqual([0, 0]);
  expect(show.stdout).toContain('[redacted]');
  for (const text of [list.stdout, list.stderr, show.stdout, show.stderr]) expect(leaks(text)).toEqual([]);
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
