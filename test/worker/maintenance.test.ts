import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { produceTick } from '../../src/scheduler/producer.js';
import { simulatedProtocols } from '../../src/simulator/index.js';
import { createWorkerPool } from '../../src/worker/workers.js';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.js';

let harness: PipelineHarness;
beforeAll(async () => {
  harness = await createPipelineHarness({ options: { RAW_RETENTION_DAYS: '14' } });
});
afterAll(async () => harness?.close());

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the daily maintenance job', () => {
  it('syncs the protocol list, prunes old raw responses and creates partitions ahead', async () => {
    const tick = new Date('2026-11-21T03:30:00Z');
    const { sql } = harness.database;
    // A raw response past retention and one inside it.
    await sql`insert into raw_responses (received_at, dataset, endpoint, target, tick, http_status, sha256, body) values
      (${new Date('2026-10-01T00:00:00Z')}, 'prices', '/tokens/sui/price', 'old', ${new Date('2026-10-01T00:00:00Z')}, 200, 'x', '{}'),
      (${new Date('2026-11-20T00:00:00Z')}, 'prices', '/tokens/sui/price', 'recent', ${new Date('2026-11-20T00:00:00Z')}, 200, 'y', '{}')`;

    const pool = createWorkerPool({ ...harness, redis: harness.connection, queueNames: ['maintenance'] });
    try {
      await produceTick({ ...harness, redis: harness.connection }, 'maintenance', tick);
      await waitUntil(
        async () => (await harness.queues.maintenance.getJobCounts('completed', 'failed')).completed === 1,
      );
    } finally {
      await pool.close();
    }

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
});
