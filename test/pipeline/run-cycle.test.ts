import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { produceTick } from '../../src/scheduler/producer.ts';
import { runCycle } from '../../src/cli/run-cycle.ts';
import { simulatedToken } from '../../src/simulator/index.ts';
import { SNAPSHOT_CHANNEL } from '../../src/queue/tick-notification.ts';
import { createPipelineHarness, type PipelineHarness, producerDeps, cycleDeps } from '../support/pipeline.ts';
import { tableDigest } from '../support/table-digest.ts';
import { coin } from '../support/coins.ts';

const TOKENS = ['0x2::sui::SUI', ...Array.from({ length: 59 }, (_, i) => coin(i))];
const ADDRESSES = [
  '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e',
  '0x1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809',
  '0xd8da6bf26964af9d7eed9e03e53415d37aa96045',
];

let harness: PipelineHarness;
const deps = () => cycleDeps(harness);

beforeAll(async () => {
  harness = await createPipelineHarness();
  await addWatchedTokens(harness.database, TOKENS);
  await addWatchedAddresses(harness.database, ADDRESSES.slice(0, 2), { includePnl: true });
  await addWatchedAddresses(harness.database, ADDRESSES.slice(2), {});
});
afterAll(async () => harness?.close());
afterEach((context) => {
  if (context.task.result?.state === 'fail')
    console.log(harness.logs.filter((l) => /retry|fail|error|warn/i.test(l)).join(''));
});

describe('one full cycle through queues, workers and the simulated upstream', () => {
  const tick = new Date('2026-11-21T12:00:00Z');

  it('fills every table, records every job and announces each dataset tick', async () => {
    const notifications: string[] = [];
    // Sent by this test after the cycle: Postgres delivers notifications in the order they were
    // committed, so once it arrives every notification of the cycle has arrived too.
    const marker = JSON.stringify({ marker: 'end of the cycle' });
    let markerArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (markerArrived = resolve));
    const listener = await harness.database.sql.listen(SNAPSHOT_CHANNEL, (payload) =>
      payload === marker ? markerArrived() : notifications.push(payload),
    );
    const outcome = await runCycle(deps(), { tick, datasets: ['prices', 'positions', 'nfts'] });
    expect(outcome.complete).toBe(true);
    expect(outcome.produced.map((p) => p.jobs)).toEqual([2, 3, 3]);

    // Every table and view of the data contract, by the names BI reads.
    const count = async (relation: string) =>
      (await harness.database.sql.unsafe(`select count(*)::int as n from ${relation}`))[0]!.n as number;
    for (const relation of [
      'tokens',
      'token_prices',
      'protocols',
      'positions',
      'position_snapshots',
      'position_amounts',
      'position_farming',
      'nft_collections',
      'nft_holding_snapshots',
      'nft_tokens',
      'raw_responses',
    ]) {
      expect(await count(relation), relation).toBeGreaterThan(0);
    }
    expect(await count('watched_tokens')).toBe(60);
    expect(await count('quarantined_payloads')).toBe(0);
    const runs = await harness.database.sql<{ dataset: string; status: string; n: number }[]>`
      select dataset, status, count(*)::int as n from ingestion_runs where tick = ${tick} group by 1, 2 order by 1`;
    expect(runs).toEqual([
      { dataset: 'nfts', status: 'succeeded', n: 3 },
      { dataset: 'positions', status: 'succeeded', n: 3 },
      { dataset: 'prices', status: 'succeeded', n: 2 },
    ]);
    // Every price the upstream sent is stored once, in the normal form, whatever spelling came back.
    const [sui] = await harness.database
      .sql`select count(*)::int as n from token_prices where coin_type = ${`0x${'0'.repeat(63)}2::sui::SUI`}`;
    expect(sui!.n).toBe(1);
    const [prices] = await harness.database.sql`
      select count(*) filter (where origin = 'prices')::int as asked, count(*) filter (where origin <> 'prices')::int as harvested
      from token_prices`;
    expect(prices!.asked).toBe(TOKENS.filter((token) => simulatedToken(token).priced).length);
    // The prices the positions and NFT answers carried, of tokens not asked for at that time.
    expect(prices!.harvested).toBeGreaterThan(0);
    const [pnl] = await harness.database.sql`
      select count(*) filter (where realized_pnl is null)::int as without, count(*) filter (where realized_pnl is not null)::int as with
      from nft_holding_snapshots`;
    expect(pnl!.with).toBeGreaterThan(0); // the two addresses that asked for PnL
    expect(pnl!.without).toBeGreaterThan(0); // the one that did not: null, never zero

    await harness.database.sql.notify(SNAPSHOT_CHANNEL, marker);
    await arrived;
    await listener.unlisten();
    expect(notifications.map((n) => JSON.parse(n)).sort((a, b) => a.dataset.localeCompare(b.dataset))).toEqual([
      { dataset: 'nfts', tick: tick.toISOString() },
      { dataset: 'positions', tick: tick.toISOString() },
      { dataset: 'prices', tick: tick.toISOString() },
    ]);
  });

  it('writes nothing new when the same tick runs again', async () => {
    const before = await tableDigest(harness.database);
    // Drop the finished jobs so that the tick really is fetched and written a second time.
    for (const queue of Object.values(harness.queues)) await queue.obliterate({ force: true });
    const requestsBefore = harness.simulator.stats().requests;
    const outcome = await runCycle(deps(), { tick, datasets: ['prices', 'positions', 'nfts'] });
    expect(outcome.complete).toBe(true);
    expect(harness.simulator.stats().requests - requestsBefore).toBe(8);
    expect(await tableDigest(harness.database)).toEqual(before);
  });

  it('enqueues each job once when two schedulers produce the same tick', async () => {
    const next = new Date('2026-11-21T12:15:00Z');
    const producer = producerDeps(harness);
    await Promise.all([produceTick(producer, 'positions', next), produceTick(producer, 'positions', next)]);
    await produceTick(producer, 'positions', next);
    const jobs = await harness.queues.positions.getJobs(['wait', 'active', 'delayed', 'completed', 'failed']);
    expect(
      jobs
        .filter((job) => job.data.tick === next.toISOString())
        .map((job) => job.data.address)
        .sort(),
    ).toEqual(ADDRESSES.slice().sort());
    await harness.queues.positions.obliterate({ force: true });
  });

  it('rides out 429s without failing a job or spending attempts', async () => {
    const next = new Date('2026-11-21T13:00:00Z');
    harness.simulator.resetStats();
    harness.simulator.setFaults({ error429Rate: 0.5, retryAfterSeconds: 1 });
    try {
      const outcome = await runCycle(deps(), { tick: next, datasets: ['prices', 'positions', 'nfts'] });
      expect(outcome.complete).toBe(true);
    } finally {
      harness.simulator.setFaults({ error429Rate: 0 });
    }
    expect(harness.simulator.stats().byStatus['429'] ?? 0).toBeGreaterThan(0);
    const runs = await harness.database.sql<{ status: string; attempts: number }[]>`
      select status, attempts from ingestion_runs where tick = ${next}`;
    expect(runs).toHaveLength(8);
    expect(runs.every((run) => run.status === 'succeeded' && run.attempts === 1)).toBe(true);
  });
});
