import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJobs } from '../../src/scheduler/producer.ts';
import { positionJobs } from '../../src/scheduler/job-builders.ts';
import type { UpstreamClient } from '../../src/upstream/client.ts';
import type { PositionsResponse } from '../../src/upstream/schemas.ts';
import { createWorkerPool } from '../../src/worker/workers.ts';
import { settled } from '../support/job-settled.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';

// An answer mixing what real answers look like (issue 14), through a real queue, Postgres and the
// simulated upstream; the only change is the answer's list, replaced before it is normalized.
let harness: PipelineHarness;
beforeAll(async () => {
  harness = await createPipelineHarness({ options: { JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: '50' } });
});
afterAll(async () => harness?.close());

const OWNER = `0x${'b7'.repeat(32)}`;
const LONG_AMOUNT = '1234.5678901234567890123456789012345678';
const SUI = '0x2::sui::SUI';

const mixed = [
  {
    positionId: 'clmm-1',
    chain: 'SUI',
    type: 'CLMM',
    input: [{ amount: LONG_AMOUNT, value: { value: '2.79' }, token: { coinType: SUI, name: 'Sui', poolId: '0xp' } }],
    current: { tokens: [{ amount: 1, value: '3.5', token: SUI }], yield: [], healthy: true },
    fee: { value: 2.79 },
    meta: { protocol: { name: 'Cetus', protocol: 'cetus' } },
  },
  { chain: 'SUI', type: 'AMM', input: [{ amount: 1, value: 1, token: SUI }] },
  {
    positionId: 'borrow-1',
    chain: 'SUI',
    type: 'Borrow',
    input: [
      { positionId: 'lending-1', type: 'Lending', input: [{ amount: 100, value: 320, token: SUI }], current: {} },
      { amount: 5, value: 16, token: SUI },
    ],
    fee: true,
  },
];

function withAnswer(data: unknown[]): UpstreamClient {
  const client = harness.client;
  return {
    ...client,
    async fetchPositions(address, opts) {
      const response = await client.fetchPositions(address, opts);
      return { ...response, data: { ...response.data, data } as PositionsResponse };
    },
  };
}

async function driftCount(field: string, shape: string): Promise<number> {
  const metric = await harness.context.metrics.schemaDrift.get();
  const found = metric.values.find(
    (value) => value.labels.dataset === 'positions' && value.labels.field === field && value.labels.shape === shape,
  );
  return found?.value ?? 0;
}

describe('an answer with one unreadable element among readable ones', () => {
  it('stores every readable element, quarantines only the unreadable one with its index, and counts drifts', async () => {
    const tick = new Date('2026-11-21T13:00:00Z');
    const [planned] = positionJobs(
      [{ address: OWNER, chain: null, protocols: null, nftChain: 'ALL', includePnl: false }],
      tick,
      false,
    );
    const feeDriftsBefore = await driftCount('positions.fee', 'value_object');
    const pool = createWorkerPool({
      ...harness,
      redis: harness.connection,
      client: withAnswer(mixed),
      queueNames: ['positions'],
    });
    try {
      await enqueueJobs(harness, 'positions', [planned!]);
      const { job, state } = await settled(harness.queues.positions, planned!.opts.jobId);
      expect(state).toBe('completed');
      expect(job.attemptsMade).toBe(1);
    } finally {
      await pool.close();
    }
    const sql = harness.database.sql;

    const [run] = await sql`
      select status, elements_stored, elements_quarantined from ingestion_runs
      where dataset = 'positions' and target = ${OWNER} and tick = ${tick}`;
    expect(run).toEqual({ status: 'succeeded', elements_stored: 2, elements_quarantined: 1 });

    const quarantined = await sql<{ element_index: number; reason: string; body: string }[]>`
      select element_index, reason, body from quarantined_payloads where target = ${OWNER} and tick = ${tick}`;
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]).toMatchObject({ element_index: 1, reason: 'positionId: missing' });
    expect(JSON.parse(quarantined[0]!.body)).toEqual(mixed[1]);

    const snapshots = await sql<
      { position_id: string; fee: string | null; input_value: string | null; extra: unknown }[]
    >`
      select position_id, fee::text, input_value::text, extra from position_snapshots
      where owner = ${OWNER} and snapshot_at = ${tick} order by position_id`;
    expect(snapshots).toEqual([
      // The nested position is kept in extra, by its index in input; fee true is kept as received.
      {
        position_id: 'borrow-1',
        fee: null,
        input_value: '16',
        extra: { fee: true, input: { '0': mixed[2]!.input![0] } },
      },
      { position_id: 'clmm-1', fee: '2.79', input_value: '2.79', extra: { current: { healthy: true } } },
    ]);
    const [amount] = await sql<{ amount: string }[]>`
      select amount::text from position_amounts
      where owner = ${OWNER} and snapshot_at = ${tick} and position_id = 'clmm-1' and kind = 'input'`;
    expect(amount!.amount).toBe(LONG_AMOUNT);

    expect((await driftCount('positions.fee', 'value_object')) - feeDriftsBefore).toBe(1);
    expect(await driftCount('positions.input', 'position')).toBe(1);
    expect(await driftCount('positions.fee', 'boolean')).toBe(1);
    const drifts = await sql`
      select field, shape, count::int from schema_drifts where dataset = 'positions' and field like 'positions.fee' order by shape`;
    expect(drifts).toEqual([
      { field: 'positions.fee', shape: 'boolean', count: 1 },
      { field: 'positions.fee', shape: 'value_object', count: 1 },
    ]);
  });
});
