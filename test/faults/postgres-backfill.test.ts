import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { addWatchedTokens } from '../../src/db/index.ts';
import { runBackfill } from '../../src/cli/backfill-prices.ts';
import { compareData, readData, type DataSnapshot } from '../support/fault-digest.ts';
import { startChaintap, waitFor, type ChaintapProcess } from '../support/fault-processes.ts';
import { faultWatchlist, expectDataOfReference } from '../support/fault-scenario.ts';
import { createPipelineHarness, cycleDeps, type PipelineHarness } from '../support/pipeline.ts';

// Postgres restarted in the middle of `chaintap backfill prices`: every connection of the test
// database terminated (again and again, as a restart does to them), then the database refusing
// connections for 10 s, then back, as in postgres-outage.test.ts (the server itself is shared by
// the other tests and is never restarted). The backfill is the real command, in a process of its
// own, with its in-process workers. Nothing may be lost or stored twice: with the default job
// attempts the jobs ride the outage out (a statement waits for a connection while Postgres refuses
// them; one whose connection is cut is retried); with one attempt, the jobs whose transactions the
// restart cuts fail for good, and the command must say so in one line and a second run complete
// them. Either way the prices must equal a fault-free backfill's.
const OUTAGE_MS = 10_000;
const HOUR = 3_600_000;
const FROM = new Date('2026-11-18T00:00:00Z');
const TO = new Date('2026-11-20T00:00:00Z');
const { tokens } = faultWatchlist({ tokens: 120, addresses: 0 });
// 49 steps, both ends included, of three requests of at most 50 tokens.
const STEPS = (TO.getTime() - FROM.getTime()) / HOUR + 1;
const JOBS = STEPS * Math.ceil(tokens.length / 50);
const BACKFILL = ['backfill', 'prices', '--from', FROM.toISOString(), '--to', TO.toISOString(), '--yes'];
let expected: DataSnapshot;
let admin: postgres.Sql;
const harnesses: PipelineHarness[] = [];
const processes: ChaintapProcess[] = [];

beforeAll(async () => {
  const clean = await createPipelineHarness({ options: { UPSTREAM_CONCURRENCY: '16' } });
  try {
    await addWatchedTokens(clean.database, tokens);
    const outcome = await runBackfill(cycleDeps(clean), { from: FROM, to: TO, intervalMs: HOUR });
    if (!outcome.complete || outcome.jobs !== JOBS) throw new Error('the fault-free backfill did not complete');
    expected = await readData(clean.database);
  } finally {
    await clean.close();
  }
  admin = postgres(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await Promise.all(processes.map((child) => child.stop('SIGKILL')));
  for (const harness of harnesses) {
    await admin?.unsafe(`alter database "${harness.database.name}" allow_connections true`).catch(() => undefined);
    await harness.close();
  }
  await admin?.end();
});

/**
 * schema_drifts.count counts the ticks that arrive newer than the last one seen (docs/schema.md): a
 * backfill's 49 ticks arrive in an order that concurrency and retries change. Its rows are compared
 * without it.
 */
function withoutDriftCounts(data: DataSnapshot): DataSnapshot {
  const drifts = data.schema_drifts!;
  const values = new Map([...drifts.values].map(([key, value]) => [key, value.replace(/\|\d+$/, '')]));
  return { ...data, schema_drifts: { ...drifts, values, md5: valuesDigest(values) } };
}

/** A table's checksum over the given rows, sorted as readData's is (the heap's order changes with writes). */
function valuesDigest(values: Map<string, string>): string {
  return [...values]
    .map(([key, value]) => `${key}\t${value}`)
    .sort()
    .join('\n');
}

async function backfillRuns(harness: PipelineHarness, status: string): Promise<number> {
  const [row] = await harness.database.sql<{ n: number }[]>`
    select count(*)::int as n from ingestion_runs where dataset = 'backfill' and status = ${status}`;
  return row!.n;
}

/** Terminates every connection of the database, then refuses new ones for OUTAGE_MS. */
async function restartPostgres(database: string): Promise<{ outageMs: number; backendsTerminated: number }> {
  const terminate = async () => {
    const [row] = await admin`
      select count(*)::int as n from (
        select pg_terminate_backend(pid) from pg_stat_activity where datname = ${database}
      ) t`;
    return row!.n as number;
  };
  const start = Date.now();
  let backendsTerminated = 0;
  try {
    for (let round = 0; round < 5; round++) {
      backendsTerminated += await terminate();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await admin.unsafe(`alter database "${database}" allow_connections false`);
    backendsTerminated += await terminate();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - start))));
    backendsTerminated += await terminate();
  } finally {
    await admin.unsafe(`alter database "${database}" allow_connections true`);
  }
  return { outageMs: Date.now() - start, backendsTerminated };
}

async function exitOf(child: ChaintapProcess): Promise<number | null> {
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`${child.name} did not end:\n${child.lines.slice(-20).join('\n')}`)), 180_000),
  );
  return (await Promise.race([child.exited, timeout])).code;
}

async function backfillThroughRestart(scenario: string, options: Record<string, string>) {
  const harness = await createPipelineHarness({
    options: { UPSTREAM_CONCURRENCY: '4', UPSTREAM_RPS: '15', JOB_ATTEMPTS: '5', JOB_BACKOFF_MS: '2000', ...options },
    simulator: { faults: { latencyMs: 150, latencyJitterMs: 150 } },
  });
  harnesses.push(harness);
  await addWatchedTokens(harness.database, tokens);
  const backfill = startChaintap(scenario, BACKFILL, harness.env);
  processes.push(backfill);
  await waitFor('a third of the backfill stored', async () => (await backfillRuns(harness, 'succeeded')) >= JOBS / 3);
  const notes: Record<string, unknown> = { storedBefore: await backfillRuns(harness, 'succeeded') };
  Object.assign(notes, await restartPostgres(harness.database.name));
  const code = await exitOf(backfill);
  notes.exit = code;
  // Failed for good: every job of the run without a final outcome of success or quarantine.
  notes.failedForGood =
    JOBS - (await backfillRuns(harness, 'succeeded')) - (await backfillRuns(harness, 'quarantined'));
  notes.failedRecorded = await backfillRuns(harness, 'failed');
  const output = backfill.lines.filter((line) => !line.startsWith('{'));
  return { harness, code, output, notes };
}

/**
 * The run's data equal the fault-free backfill's. `newBatches`: a second run batches the times it
 * asks again anew (only the tokens missing at each time), so its jobs' targets, and their
 * dataset_watermarks rows, are new ones: those rows are left out.
 */
async function expectPricesOfFaultFreeRun(
  harness: PipelineHarness,
  scenario: string,
  notes: Record<string, unknown>,
  newBatches = false,
) {
  const [retried] = await harness.database.sql<{ n: number }[]>`
    select count(*)::int as n from ingestion_runs where dataset = 'backfill' and attempts > 1`;
  notes.jobsRetried = retried!.n;
  notes.requests = harness.simulator.stats().requests;
  const found = withoutDriftCounts(await readData(harness.database));
  const want = withoutDriftCounts(expected);
  if (newBatches) {
    // Both sides' checksums over their rows as read, so that a changed or lost row still differs.
    const watermarks = found.dataset_watermarks!;
    const known = want.dataset_watermarks!.values;
    const values = new Map([...watermarks.values].filter(([key]) => known.has(key)));
    found.dataset_watermarks = { ...watermarks, values, rows: values.size, md5: valuesDigest(values) };
    want.dataset_watermarks = { ...want.dataset_watermarks!, md5: valuesDigest(known) };
    notes.newBatchWatermarks = watermarks.values.size - values.size;
    expect(notes.newBatchWatermarks).toBeGreaterThan(0);
  }
  const comparison = compareData(found, want);
  expectDataOfReference(scenario, comparison, notes);
}

describe('Postgres restarted during a backfill', () => {
  it('with the default backoff the jobs ride it out: one run stores every price once', async () => {
    const scenario = 'Postgres restarted during a backfill (terminated, then unreachable 10 s)';
    const { harness, code, output, notes } = await backfillThroughRestart(scenario, {});
    expect(code).toBe(0);
    expect(output).toContain('backfill: 49 step(s) x 120 token(s); 0 already stored, 147 request(s) done');
    expect(notes.failedForGood).toBe(0);
    expect(await backfillRuns(harness, 'succeeded')).toBe(JOBS);
    await expectPricesOfFaultFreeRun(harness, scenario, notes);
  });

  it('with no retries left: one line says what failed, and a second run completes it', async () => {
    const scenario = 'Postgres restarted during a backfill, JOB_ATTEMPTS 1, then run again';
    // One attempt: a job whose transaction the restart cuts fails for good.
    const { harness, code, output, notes } = await backfillThroughRestart(scenario, { JOB_ATTEMPTS: '1' });
    expect(code).toBe(1);
    const failed = notes.failedForGood as number;
    expect(failed).toBeGreaterThan(0);
    // Each last attempt that failed in the outage waited for Postgres to record its failure.
    expect(notes.failedRecorded).toBe(failed);
    expect(output, output.join('\n')).toContain(
      `${failed} request(s) failed and 0 were quarantined: run the same command again to retry them`,
    );
    const secondRunStart = new Date();
    const again = startChaintap(`${scenario}, again`, BACKFILL, harness.env);
    processes.push(again);
    expect(await exitOf(again)).toBe(0);
    // The stored prices are skipped; the failed requests are sent again (with the times the
    // upstream had no price for, which a second run always asks again).
    expect(
      again.lines.filter((line) =>
        /^backfill: 49 step\(s\) x 120 token\(s\); \d+ already stored, \d+ request\(s\) done$/.test(line),
      ),
    ).toHaveLength(1);
    // None of the second run's requests failed. A failed batch of the first run whose missing tokens
    // the second run asked in a new batch keeps its row: it did fail, and its prices are stored now.
    const [failedAgain] = await harness.database.sql<{ n: number }[]>`
      select count(*)::int as n from ingestion_runs
      where dataset = 'backfill' and status = 'failed' and finished_at >= ${secondRunStart}`;
    expect(failedAgain!.n).toBe(0);
    notes.failedRowsOfFirstRunLeft = await backfillRuns(harness, 'failed');
    await expectPricesOfFaultFreeRun(harness, scenario, notes, true);
  });
});
