import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../support/fault-processes.ts';
import {
  compareWithReference,
  expectDataOfReference,
  runOutcomes,
  waitForTickComplete,
} from '../support/fault-scenario.ts';
import { useFaultScenario } from '../support/fault-setup.ts';

// A Redis that runs out of memory mid-cycle: maxmemory is set below what it uses (noeviction, as
// BullMQ needs), so that it refuses every write, for 10 s, then raised again. Its own redis-server
// on a free port: the shared one is never touched. Workers treat it as an outage, like Redis down:
// their commands wait until Redis has room, no job attempt is spent on it and nothing is sent twice.
const FULL_MS = 10_000;
const scenario = useFaultScenario({
  ownRedis: true,
  options: {
    // Longer than the outage, as the default (60 s) is: the locks outlive it.
    JOB_LOCK_MS: '30000',
    UPSTREAM_CONCURRENCY: '4',
    UPSTREAM_RPS: '20',
    JOB_ATTEMPTS: '5',
    // Five attempts in at most 7.5 s (exponential backoff, jittered): a job failing at each refused write would run out of them.
    JOB_BACKOFF_MS: '500',
  },
  simulator: { faults: { latencyMs: 150, latencyJitterMs: 150 } },
});
let admin: Redis;

beforeAll(() => {
  admin = new Redis(scenario.redis!.url, { maxRetriesPerRequest: 1 });
});
afterAll(() => admin?.disconnect());

it('Redis full mid-cycle: work waits with a clear error, then the cycle completes once, with identical data', async () => {
  const { harness, reference, jobs, finished } = scenario;
  const worker = await scenario.startWorker('worker');
  await scenario.produceTick();
  await waitFor('a third of the jobs finished', async () => (await finished()) >= Math.floor(jobs / 3), 60_000);

  // Half what it uses: every write is refused ("OOM command not allowed ...") until raised.
  const used = Number(/^used_memory:(\d+)/m.exec(await admin.info('memory'))![1]);
  await admin.config('SET', 'maxmemory', String(Math.floor(used / 2)));
  const full = {
    finishedBefore: await finished(),
    requestsBefore: harness.simulator.stats().requests,
    finished: 0,
    requests: 0,
  };
  await new Promise((resolve) => setTimeout(resolve, FULL_MS));
  // Jobs already past the pacer were answered and written (a script whose first write removes
  // something may go on writing, so some even finish); none failed an attempt meanwhile.
  full.finished = (await finished()) - full.finishedBefore;
  full.requests = harness.simulator.stats().requests - full.requestsBefore;
  const [failing] = await harness.database.sql<{ n: number }[]>`
    select count(*)::int as n from ingestion_runs where status in ('failed', 'retrying')`;
  await admin.config('SET', 'maxmemory', '0');

  expect(failing!.n).toBe(0);
  // Said clearly, a few times (every 30 s per connection), not once per refused command.
  const said = worker.lines.filter((line) => line.includes('Redis is full: it refuses writes'));
  expect(said.length).toBeGreaterThan(0);
  expect(said.length).toBeLessThan(20);
  expect(JSON.parse(said[0]!)).toMatchObject({ err: expect.stringContaining('raise maxmemory') });

  await waitForTickComplete(harness, 120_000, [worker]);
  expect(await runOutcomes(harness.database)).toEqual({ succeeded: jobs });
  const [retried] = await harness.database.sql<
    { n: number }[]
  >`select count(*)::int as n from ingestion_runs where attempts > 1`;
  // Every job sent its request once: none was repeated, none spent an attempt on the outage.
  expect(harness.simulator.stats().requests).toBe(jobs);
  expect(retried!.n).toBe(0);
  const { comparison } = await compareWithReference(harness.database, reference);
  expectDataOfReference('Redis full (maxmemory under noeviction) 10 s mid-cycle', comparison, {
    finishedBeforeFull: full.finishedBefore,
    finishedWhileFull: full.finished,
    requestsAnsweredWhileFull: full.requests,
    fullWarnings: said.length,
  });
  expect(worker.child.exitCode).toBeNull();
});
