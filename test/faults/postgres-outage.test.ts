import postgres from 'postgres';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { watchAtomicity } from '../support/fault-atomicity.ts';
import { waitFor } from '../support/fault-processes.ts';
import {
  FAULT_TICK,
  compareWithReference,
  expectDataOfReference,
  runOutcomes,
  waitForTickComplete,
} from '../support/fault-scenario.ts';
import { useFaultScenario } from '../support/fault-setup.ts';

// Postgres connections terminated mid-cycle (a dozen times), then the database unreachable for 10
// seconds. The worker process survives it all (the driver's faults, patches/postgres+3.4.9.patch). Jobs
// retry with the default backoff (JOB_ATTEMPTS 5, JOB_BACKOFF_MS 2000: about 15 s or more before
// the last attempt) and the cycle completes once Postgres is back. All the while a connection of the
// test's own (spared by the terminations) checks that no job is ever half visible.
const OUTAGE_MS = 10_000;
const TERMINATION_ROUNDS = 12;
const scenario = useFaultScenario({
  options: {
    JOB_LOCK_MS: '10000',
    UPSTREAM_CONCURRENCY: '4',
    UPSTREAM_RPS: '15',
    JOB_ATTEMPTS: '5',
    JOB_BACKOFF_MS: '2000',
  },
  simulator: { faults: { latencyMs: 150, latencyJitterMs: 150 } },
});
let admin: postgres.Sql;

beforeAll(() => {
  admin = postgres(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
});

// Registered after the scenario's: runs before it, letting connections in again before the harness drops its database.
afterAll(async () => {
  if (admin && scenario.harness)
    await admin
      .unsafe(`alter database "${scenario.harness.database.name}" allow_connections true`)
      .catch(() => undefined);
  await admin?.end();
});

it('jobs retry through terminated connections and a 10 s outage; the cycle completes; no partial job is ever visible', async () => {
  const { harness, reference, jobs, finished } = scenario;
  const name = harness.database.name;
  const watcherSql = postgres(harness.database.url, { max: 1, onnotice: () => {}, idle_timeout: 0, max_lifetime: 0 });
  const [{ pid: watcherPid }] = (await watcherSql`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
  const terminateOthers = async () => {
    const [row] = await admin`
      select count(*)::int as n from (
        select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> ${watcherPid}
      ) t`;
    return row!.n as number;
  };
  const connectedOthers = async () => {
    const [row] =
      await admin`select count(*)::int as n from pg_stat_activity where datname = ${name} and pid <> ${watcherPid}`;
    return row!.n as number;
  };

  const watcher = watchAtomicity(watcherSql, FAULT_TICK, reference.batches, reference.view);
  let atomicity: Awaited<ReturnType<typeof watcher.stop>>;
  const phases: Record<string, unknown> = {};
  try {
    await scenario.startWorker('worker');
    await scenario.produceTick();

    await waitFor('a sixth of the jobs finished', async () => (await finished()) >= Math.floor(jobs / 6), 60_000);
    // Connections dropped again and again, in the middle of transactions, of COPYs and of connecting.
    const terminated = { rounds: TERMINATION_ROUNDS, backends: 0, finishedBefore: await finished() };
    for (let round = 0; round < TERMINATION_ROUNDS; round++) {
      terminated.backends += await terminateOthers();
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 250));
    }
    phases.terminatedMidCycle = terminated;

    await waitFor('a third of the jobs finished', async () => (await finished()) >= Math.floor(jobs / 3), 60_000);
    const outageStart = Date.now();
    try {
      await admin.unsafe(`alter database "${name}" allow_connections false`);
      const terminated = await terminateOthers();
      phases.outage = { finished: await finished(), backends: terminated };
      await new Promise((resolve) => setTimeout(resolve, 250));
      await terminateOthers(); // a connection that was being set up as the door closed
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - outageStart))));
      // Unreachable the whole time: nothing but the watcher got in.
      expect(await connectedOthers()).toBe(0);
    } finally {
      await admin.unsafe(`alter database "${name}" allow_connections true`);
    }
    phases.outageMs = Date.now() - outageStart;
    phases.finishedAfterOutage = await finished();
    expect(phases.finishedAfterOutage).toBeLessThan(jobs);
    await waitForTickComplete(harness, 120_000, scenario.workers);
  } finally {
    atomicity = await watcher.stop();
    await watcherSql.end();
  }

  // The worker rode it out: it is still running, it never crashed.
  expect(scenario.workers[0]!.child.exitCode).toBeNull();
  expect(scenario.workers[0]!.lines.filter((line) => !line.startsWith('{'))).toEqual([]);
  expect(await runOutcomes(harness.database)).toEqual({ succeeded: jobs });
  const [retried] = await harness.database.sql<
    { n: number }[]
  >`select count(*)::int as n from ingestion_runs where attempts > 1`;
  const { comparison } = await compareWithReference(harness.database, reference);
  expectDataOfReference('Postgres connections terminated, then unreachable 10 s', comparison, {
    ...phases,
    jobsRetried: retried!.n,
    atomicityObservations: atomicity.observations,
    atomicityFailedReads: atomicity.failedReads,
  });
  // The faults hit jobs: they failed attempts and succeeded on a later one.
  expect(retried!.n).toBeGreaterThan(0);
  expect(atomicity.violations).toEqual([]);
  expect(atomicity.observations).toBeGreaterThan(20);
});
