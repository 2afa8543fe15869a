import { expect, it } from 'vitest';
import { readRawResponses } from '../../src/db/index.ts';
import { runCycle } from '../../src/cli/run-cycle.ts';
import { FaultDraws, resolveFaults, type SimulatorFaults } from '../../src/simulator/faults.ts';
import { partialJobs, readTick } from '../support/fault-atomicity.ts';
import { ALL_DATASETS, FAULT_TICK, compareWithReference, expectDataOfReference } from '../support/fault-scenario.ts';
import { useFaultScenario } from '../support/fault-setup.ts';
import { cycleDeps } from '../support/pipeline.ts';

// Every upstream fault at once, from a fixed fault seed. In-request retries are off and a job has
// three attempts, so that transient faults cost job attempts and some jobs may run out of them: the
// failed outcome must be recorded and counted as exactly as the others. The timeout (3 s) is above
// a 2 s spike, so a spike is slow but answered; only the simulator's never-answered requests time out.
const FAULT_SEED = 11;
const FAULTS: Partial<SimulatorFaults> = {
  latencyMs: 20,
  latencyJitterMs: 30,
  spikeRate: 0.1,
  spikeMs: 2_000,
  error5xxRate: 0.2,
  error429Rate: 0.1,
  retryAfterSeconds: 1,
  malformedRate: 0.05,
  timeoutRate: 0.05,
};
const scenario = useFaultScenario({
  options: {
    UPSTREAM_TIMEOUT_MS: '3000',
    UPSTREAM_MAX_RETRIES: '0',
    JOB_ATTEMPTS: '3',
    JOB_BACKOFF_MS: '100',
    UPSTREAM_CONCURRENCY: '8',
  },
  simulator: { faultSeed: FAULT_SEED, faults: FAULTS },
});
const { jobs } = scenario;

/**
 * What the first `jobs` fault draws hold. Every job sends at least one request, so these draws are
 * all used whatever order requests arrive in: each of their faults must show in the outcome. A draw
 * answering 200 with JSON of the wrong shape (malformed, flavour >= 0.5) quarantines the job it
 * lands on, which then sends nothing more; a spike delays any answer but a timeout by 2 s.
 */
function certainFaults() {
  const draws = new FaultDraws(FAULT_SEED);
  const faults = resolveFaults(FAULTS);
  const counts = { timeout: 0, error5xx: 0, error429: 0, quarantine: 0, answeredSpike: 0 };
  for (let i = 0; i < jobs; i++) {
    const draw = draws.draw(faults);
    if (draw.kind === 'timeout') counts.timeout++;
    if (draw.kind === 'error5xx') counts.error5xx++;
    if (draw.kind === 'error429') counts.error429++;
    if (draw.kind === 'malformed' && draw.flavour >= 0.5) counts.quarantine++;
    if (draw.kind !== 'timeout' && draw.delayMs >= FAULTS.spikeMs!) counts.answeredSpike++;
  }
  return counts;
}

it('5xx, 429 with Retry-After, malformed bodies, 2 s spikes and timeouts together: every job ends in one recorded outcome and the counts reconcile', async () => {
  const { harness, reference } = scenario;
  const outcome = await runCycle(cycleDeps(harness), { tick: FAULT_TICK, datasets: ALL_DATASETS });
  expect(outcome.complete).toBe(true);
  expect(outcome.produced.reduce((sum, p) => sum + p.jobs, 0)).toBe(jobs);
  const stats = harness.simulator.stats();
  // Every kind of fault happened (the seed is chosen so that each is certain, see certainFaults).
  const certain = certainFaults();
  expect(Object.values(certain).every((n) => n > 0)).toBe(true);
  expect(stats.byStatus.timeout ?? 0).toBeGreaterThanOrEqual(certain.timeout);
  expect(stats.byStatus['429'] ?? 0).toBeGreaterThanOrEqual(certain.error429);
  expect(
    (stats.byStatus['500'] ?? 0) + (stats.byStatus['502'] ?? 0) + (stats.byStatus['503'] ?? 0),
  ).toBeGreaterThanOrEqual(certain.error5xx);
  // The spikes reached the pipeline as answers slower than a second, not as timeouts.
  const latency = (await harness.context.metrics.upstreamLatency.get()).values.filter((v) =>
    v.metricName?.endsWith('_bucket'),
  );
  const answeredWithin = (le: number) =>
    latency.filter((v) => (v.labels as Record<string, unknown>).le === le).reduce((sum, v) => sum + v.value, 0);
  expect(answeredWithin(2.5) - answeredWithin(1)).toBeGreaterThanOrEqual(certain.answeredSpike);

  const sql = harness.database.sql;
  // One run per job, each in a final state.
  const runs = await sql<
    {
      dataset: string;
      target: string;
      status: string;
      attempts: number;
      error: string | null;
      http_status: number | null;
    }[]
  >`
    select dataset, target, status, attempts, error, http_status from ingestion_runs where tick = ${FAULT_TICK}`;
  const count = (status: string) => runs.filter((run) => run.status === status).length;
  const outcomes = { succeeded: count('succeeded'), failed: count('failed'), quarantined: count('quarantined') };
  expect(runs).toHaveLength(jobs);
  expect(outcomes.succeeded + outcomes.failed + outcomes.quarantined).toBe(jobs);
  expect(outcomes.quarantined).toBeGreaterThanOrEqual(certain.quarantine);
  expect(runs.some((run) => run.status === 'succeeded' && run.attempts > 1)).toBe(true); // retried, then ingested

  // The queues agree with ingestion_runs.
  const queueCounts = await Promise.all(
    ALL_DATASETS.map((dataset) =>
      harness.queues[dataset].getJobCounts('completed', 'failed', 'active', 'wait', 'delayed'),
    ),
  );
  const total = (state: string) => queueCounts.reduce((sum, counts) => sum + (counts[state] ?? 0), 0);
  expect({
    completed: total('completed'),
    failed: total('failed'),
    pending: total('active') + total('wait') + total('delayed'),
  }).toEqual({ completed: outcomes.succeeded + outcomes.quarantined, failed: outcomes.failed, pending: 0 });

  // Each quarantined job has its body, once, in quarantined_payloads and in raw_responses.
  const quarantined = await sql<{ dataset: string; target: string; body: string; rawResponseId: string | null }[]>`
    select dataset, target, body, raw_response_id::text as "rawResponseId" from quarantined_payloads where tick = ${FAULT_TICK}`;
  expect(quarantined.map((q) => `${q.dataset}|${q.target}`).sort()).toEqual(
    runs
      .filter((run) => run.status === 'quarantined')
      .map((run) => `${run.dataset}|${run.target}`)
      .sort(),
  );
  const rawBodies = new Map(
    (await readRawResponses(harness.database, { ids: quarantined.map((q) => String(q.rawResponseId)) })).map((row) => [
      String(row.id),
      row.body,
    ]),
  );
  for (const q of quarantined) {
    expect(q.body.length, `${q.dataset} ${q.target}`).toBeGreaterThan(0);
    expect(rawBodies.get(q.rawResponseId ?? ''), `${q.dataset} ${q.target}`).toBe(q.body);
  }
  // Each failed job says why; when the upstream answered, its error body is kept. The same body
  // for the same job is stored once, under the status it first came with (raw-responses.ts): a
  // final 504 whose body a first 500 already brought is kept as that 500's.
  for (const run of runs.filter((r) => r.status === 'failed')) {
    expect(run.error, `${run.dataset} ${run.target}`).toBeTruthy();
    expect(run.attempts).toBe(3);
    if (run.http_status !== null) {
      const [raw] =
        await sql`select count(*)::int as n from raw_responses where dataset = ${run.dataset} and target = ${run.target} and tick = ${FAULT_TICK} and http_status >= 400`;
      expect(raw!.n, `${run.dataset} ${run.target} error body`).toBeGreaterThan(0);
    }
  }

  // All or nothing per job: a succeeded job has exactly the fault-free run's rows, any other none.
  expect(partialJobs(await readTick(sql, FAULT_TICK, reference.batches), reference.view)).toEqual([]);
  // Row by row, what was written equals the fault-free run, and every row of a succeeded job is there.
  const succeeded = new Set(
    runs.filter((run) => run.status === 'succeeded').map((run) => `${run.dataset}|${run.target}`),
  );
  const pricedBy = new Map(
    reference.batches.flatMap((batch) => batch.coinTypes.map((coin) => [coin, batch.target] as const)),
  );
  const scope = (table: string, key: string): boolean => {
    const first = key.split('|')[0]!;
    if (table.startsWith('watched_')) return true;
    if (table === 'dataset_watermarks') return succeeded.has(key);
    if (table.startsWith('token')) return succeeded.has(`prices|${pricedBy.get(first)}`); // tokens or token_catalog, token_price_points
    if (table.startsWith('position')) return succeeded.has(`positions|${first}`);
    if (table.startsWith('nft_') && table !== 'nft_collections') return succeeded.has(`nfts|${first}`);
    return false; // protocols, collections, price sources: shared by many jobs; present rows are still compared
  };
  const { comparison } = await compareWithReference(harness.database, reference, scope);
  expectDataOfReference(
    'upstream faults together',
    comparison,
    {
      ...outcomes,
      jobs,
      certain,
      simulator: stats.byStatus,
      requests: stats.requests,
    },
    { checksums: false },
  );
});
