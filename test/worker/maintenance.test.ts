import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintenanceJobs } from '../../src/scheduler/job-builders.ts';
import { produceTick } from '../../src/scheduler/producer.ts';
import { simulatedProtocols } from '../../src/simulator/index.ts';
import type { Options } from '../../src/config/options.ts';
import { createWorkerPool } from '../../src/worker/workers.ts';
import { openUpstreamClient } from '../../src/cli/resources.ts';
import type { UpstreamClient } from '../../src/upstream/client.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';

let harness: PipelineHarness;
beforeAll(async () => {
  harness = await createPipelineHarness({ options: { RAW_RETENTION_DAYS: '14', QUARANTINE_RETENTION_DAYS: '30' } });
});
afterAll(async () => harness?.close());

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Runs the maintenance jobs of `tick` through a worker pool, with the harness's options changed by
 * `options` and `client` in place of the harness's, until each has completed or failed for good.
 */
async function runMaintenance(
  tick: Date,
  options: Partial<Options> = {},
  client: UpstreamClient = harness.client,
): Promise<Record<string, string>> {
  const context = { ...harness.context, options: { ...harness.options, ...options } };
  const pool = createWorkerPool({
    ...harness,
    context,
    client,
    redis: harness.connection,
    queueNames: ['maintenance'],
  });
  const states: Record<string, string> = {};
  try {
    await produceTick({ ...harness, redis: harness.connection }, 'maintenance', tick);
    for (const job of maintenanceJobs(tick)) {
      await waitUntil(async () => {
        states[job.data.kind!] = await harness.queues.maintenance.getJobState(job.opts.jobId);
        return states[job.data.kind!] === 'completed' || states[job.data.kind!] === 'failed';
      });
    }
  } finally {
    await pool.close();
  }
  return states;
}

describe('the daily maintenance jobs', () => {
  it('sync the protocol list, prune old raw responses and create partitions ahead', async () => {
    const tick = new Date('2026-11-21T03:30:00Z');
    const { sql } = harness.database;
    // A raw response past retention and one inside it.
    await sql`insert into raw_responses (received_at, dataset, endpoint, target, tick, http_status, sha256, body) values
      (${new Date('2026-10-01T00:00:00Z')}, 'prices', '/tokens/sui/price', 'old', ${new Date('2026-10-01T00:00:00Z')}, 200, 'x', '{}'),
      (${new Date('2026-11-20T00:00:00Z')}, 'prices', '/tokens/sui/price', 'recent', ${new Date('2026-11-20T00:00:00Z')}, 200, 'y', '{}')`;

    expect(await runMaintenance(tick)).toEqual({ housekeeping: 'completed', protocols: 'completed' });

    const protocols = await sql<{ protocol_id: string }[]>`select protocol_id from protocols order by 1`;
    expect(protocols.map((p) => p.protocol_id)).toEqual(
      simulatedProtocols()
        .map((p) => p.protocol)
        .sort(),
    );
    const raw = await sql<{ target: string }[]>`select target from raw_responses where target in ('old', 'recent')`;
    expect(raw.map((r) => r.target)).toEqual(['recent']);
    const runs = await sql<{ dataset: string; target: string; status: string }[]>`
      select dataset, target, status from ingestion_runs where tick = ${tick} order by dataset`;
    expect(runs).toEqual([
      { dataset: 'maintenance', target: 'housekeeping', status: 'succeeded' },
      { dataset: 'protocols', target: 'all', status: 'succeeded' },
    ]);
    // Partitions exist for the months ahead of the tick.
    const [partition] = await sql`
      select count(*)::int as n from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where c.relname like '%2027_01%'`;
    expect(partition!.n).toBeGreaterThan(0);
  });

  it("vacuums what it pruned: the next day's rows reuse the space of those past retention", async () => {
    const { sql } = harness.database;
    const rows = (from: string, target: string) => sql`
      insert into raw_responses (received_at, dataset, endpoint, target, tick, http_status, sha256, body)
      select ${new Date(from)}::timestamptz + i * interval '1 second', 'prices', '/tokens/sui/price', ${target},
             ${new Date(from)}, 200, md5(i::text), repeat(md5(i::text || ${target}), 12)
      from generate_series(1, 3000) i`;
    const size = async () =>
      (await sql<{ bytes: number }[]>`select pg_relation_size('raw_responses')::float8 as bytes`)[0]!.bytes;
    await rows('2026-09-01T00:00:00Z', 'past retention');
    const before = await size();

    await runMaintenance(new Date('2026-11-27T03:30:00Z'));
    await rows('2026-11-26T00:00:00Z', 'within retention');

    const [counts] = await sql<{ old: number; recent: number }[]>`
      select count(*) filter (where target = 'past retention')::int as old,
             count(*) filter (where target = 'within retention')::int as recent from raw_responses`;
    expect(counts).toEqual({ old: 0, recent: 3000 });
    // Without the VACUUM the new rows would go after the dead ones: about twice the size.
    expect(await size()).toBeLessThanOrEqual(before * 1.1);
  });

  it('prunes quarantined payloads past QUARANTINE_RETENTION_DAYS, and none with 0', async () => {
    const { sql } = harness.database;
    const quarantined = (target: string, receivedAt: string) => sql`
      insert into quarantined_payloads (received_at, dataset, endpoint, target, tick, http_status, reason, body)
      values (${new Date(receivedAt)}, 'positions', '/v2/address/x/positions', ${target}, ${new Date(receivedAt)}, 200, 'test', '{}')`;
    await quarantined('52 days old', '2026-10-01T00:00:00Z');
    await quarantined('29 days old', '2026-10-24T00:00:00Z');
    await runMaintenance(new Date('2026-11-22T03:30:00Z'));
    const targets = async () =>
      (await sql<{ target: string }[]>`select target from quarantined_payloads order by target`).map((r) => r.target);
    expect(await targets()).toEqual(['29 days old']);

    // 0: kept however old.
    await quarantined('a year old', '2025-11-01T00:00:00Z');
    await runMaintenance(new Date('2026-11-23T03:30:00Z'), { QUARANTINE_RETENTION_DAYS: 0 });
    expect(await targets()).toEqual(['29 days old', 'a year old']);
  });

  it('prunes ingestion_runs of ticks past RUNS_RETENTION_DAYS, and none with 0', async () => {
    const { sql } = harness.database;
    const run = (target: string, tick: string) => sql`
      insert into ingestion_runs (job_id, dataset, target, tick, status, attempts, started_at)
      values (${`job-${target}`}, 'positions', ${target}, ${new Date(tick)}, 'succeeded', 1, ${new Date(tick)})`;
    await run('93 days old', '2026-08-24T00:00:00Z');
    await run('89 days old', '2026-08-28T00:00:00Z');
    const targets = async () =>
      (
        await sql<{ target: string }[]>`select target from ingestion_runs where dataset = 'positions' order by target`
      ).map((r) => r.target);
    await runMaintenance(new Date('2026-11-25T03:30:00Z'), { RUNS_RETENTION_DAYS: 90 });
    expect(await targets()).toEqual(['89 days old']);

    // 0: kept however old.
    await run('a year old', '2025-11-01T00:00:00Z');
    await runMaintenance(new Date('2026-11-26T03:30:00Z'), { RUNS_RETENTION_DAYS: 0 });
    expect(await targets()).toEqual(['89 days old', 'a year old']);
  });

  it('prunes delivered and failed alert events past ALERT_EVENTS_RETENTION_DAYS, never a pending one, and none with 0', async () => {
    const { sql } = harness.database;
    const event = (key: string, state: string, createdAt: string) => sql`
      insert into alert_events (event_key, webhook, webhook_name, rule_id, kind, status, subject, payload, state, created_at)
      values (${key}, 'abcdef0123456789', 'ops', 'rule', 'stale', 'firing', 'prices', '{}'::jsonb, ${state}, ${new Date(createdAt)})`;
    await event('delivered 91 days ago', 'delivered', '2026-08-29T00:00:00Z');
    await event('failed 91 days ago', 'failed', '2026-08-29T00:00:00Z');
    await event('pending 91 days ago', 'pending', '2026-08-29T00:00:00Z');
    await event('delivered 89 days ago', 'delivered', '2026-08-31T00:00:00Z');
    const keys = async () =>
      (await sql<{ key: string }[]>`select event_key as key from alert_events order by 1`).map((r) => r.key);
    // The default: 90 days.
    await runMaintenance(new Date('2026-11-28T03:30:00Z'));
    expect(await keys()).toEqual(['delivered 89 days ago', 'pending 91 days ago']);

    // 0: kept however old.
    await event('delivered a year ago', 'delivered', '2025-11-01T00:00:00Z');
    await runMaintenance(new Date('2026-11-29T03:30:00Z'), { ALERT_EVENTS_RETENTION_DAYS: 0 });
    expect(await keys()).toEqual(['delivered 89 days ago', 'delivered a year ago', 'pending 91 days ago']);
  });

  it.each([
    [
      'the key is rejected',
      '2026-12-21T03:30:00Z',
      { UPSTREAM_API_KEY: 'a-key-the-service-refuses' },
      /rejected the API key/,
    ],
    [
      'the upstream is unreachable',
      '2026-12-22T03:30:00Z',
      { UPSTREAM_BASE_URL: 'http://127.0.0.1:9' },
      /network error/,
    ],
  ])(
    'while %s, housekeeping still prunes and creates partitions; the protocol sync fails alone',
    async (_name, at, upstream, reason) => {
      const { sql } = harness.database;
      const tick = new Date(at);
      await sql`insert into raw_responses (received_at, dataset, endpoint, target, tick, http_status, sha256, body) values
      (${new Date('2026-11-01T00:00:00Z')}, 'prices', '/tokens/sui/price', 'old-while-down', ${new Date('2026-11-01T00:00:00Z')}, 200, 'z', '{}')`;
      // The commands' own client, on settings whose upstream does not answer as it should.
      const options = { ...harness.options, ...upstream, UPSTREAM_TIMEOUT_MS: 500 };
      const client = openUpstreamClient({ ...harness.context, options });
      let states: Record<string, string>;
      try {
        states = await runMaintenance(tick, { JOB_BACKOFF_MS: 10 }, client);
      } finally {
        await client.close();
      }
      expect(states).toEqual({ housekeeping: 'completed', protocols: 'failed' });
      const job = await harness.queues.maintenance.getJob(maintenanceJobs(tick)[1]!.opts.jobId);
      expect(job!.failedReason).toMatch(reason);
      // Housekeeping ran whole: retention, partitions two months ahead, its run record.
      expect(await sql`select 1 from raw_responses where target = 'old-while-down'`).toHaveLength(0);
      const [partition] = await sql`
      select count(*)::int as n from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where c.relname like '%2027_02%'`;
      expect(partition!.n).toBeGreaterThan(0);
      const runs = await sql<{ dataset: string; status: string }[]>`
      select dataset, status from ingestion_runs where tick = ${tick} order by dataset`;
      expect(runs).toEqual([
        { dataset: 'maintenance', status: 'succeeded' },
        { dataset: 'protocols', status: 'failed' },
      ]);
    },
  );
});
