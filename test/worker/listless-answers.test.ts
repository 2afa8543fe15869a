import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFailureCounts } from '../../src/db/stores/status.ts';
import { nftJobs, positionJobs, priceJobs } from '../../src/scheduler/job-builders.ts';
import { startScriptedPipeline, type ScriptedPipeline } from '../support/scripted-upstream.ts';

// A 200 whose answer holds no list, after a good refresh: through a real queue, Postgres and an
// upstream that answers each request with the body the test sets (issue 24, item 1).
let pipeline: ScriptedPipeline;
beforeAll(async () => {
  pipeline = await startScriptedPipeline();
});
afterAll(async () => pipeline?.close());
const runJob = (...args: Parameters<ScriptedPipeline['runJob']>) => pipeline.runJob(...args);

const OWNER = `0x${'c4'.repeat(32)}`;
const SUI = '0x2::sui::SUI';
const WATCHED = { address: OWNER, chain: null, protocols: null, nftChain: 'ALL', includePnl: false } as const;
const GOOD_TICK = new Date('2026-11-21T12:00:00Z');

const positions = Array.from({ length: 10 }, (_, i) => ({
  positionId: `pos-${i}`,
  chain: 'SUI',
  type: 'AMM',
  current: { tokens: [{ amount: 1, value: 2, token: SUI }], yield: [] },
  meta: { protocol: { name: 'Cetus', protocol: 'cetus' } },
}));
const groups = Array.from({ length: 5 }, (_, i) => ({
  collectionId: `collection-${i}`,
  collection: { name: `Collection ${i}`, chain: 'SUI' },
  tokens: [{ tokenId: `${i}-a` }, { tokenId: `${i}-b` }],
  floorPrice: 1,
  marketPrice: 2,
}));
const prices = (tick: Date) => ({
  data: [{ contract_address: SUI, symbol: 'SUI', decimals: 9, price: 1.5, timestamp: tick.getTime() / 1000 }],
});

/** The envelopes of issue 24 that carry no list, and one that reports an error beside an empty list. */
const LISTLESS: { name: string; body: unknown; reason: RegExp }[] = [
  {
    name: 'an error string',
    body: { error: 'internal upstream error, try later' },
    reason:
      /data: missing: the answer holds no list\nerror: the answer reports an error: "internal upstream error, try later"/,
  },
  { name: 'a null list', body: { data: null }, reason: /data: null, not a list: the answer holds no list/ },
  {
    name: 'a code and a message',
    body: { code: 500, message: 'backend unavailable' },
    reason: /data: missing: the answer holds no list/,
  },
  { name: 'an empty object', body: {}, reason: /data: missing: the answer holds no list/ },
  { name: 'an object for a list', body: { data: {} }, reason: /data: an object, not a list/ },
  {
    name: 'an error beside an empty list',
    body: { data: [], error: 'backend unavailable' },
    reason: /error: the answer reports an error: "backend unavailable"/,
  },
];

async function runOf(dataset: string, target: string, tick: Date) {
  const [run] = await pipeline.harness.database.sql<
    { status: string; attempts: number; error: string | null; rows_written: number }[]
  >`select status, attempts, error, rows_written from ingestion_runs where dataset = ${dataset} and target = ${target} and tick = ${tick}`;
  return run;
}

async function quarantinedBodies(dataset: string, target: string, tick: Date): Promise<string[]> {
  const rows = await pipeline.harness.database.sql<{ body: string }[]>`
    select body from quarantined_payloads
    where dataset = ${dataset} and target = ${target} and tick = ${tick} and element_index is null`;
  return rows.map((row) => row.body);
}

/** What the wallet holds as stored: open positions, held NFTs, refreshes and the datasets' watermarks. */
async function holdings() {
  const sql = pipeline.harness.database.sql;
  const [row] = await sql<
    { open: number; held: number; position_refreshes: number; nft_refreshes: number; watermarks: string[] }[]
  >`
    select (select count(*)::int from positions where owner = ${OWNER} and closed_at is null) as open,
           (select count(*)::int from nft_tokens where owner = ${OWNER} and released_at is null) as held,
           (select count(*)::int from position_refreshes where owner = ${OWNER}) as position_refreshes,
           (select count(*)::int from nft_refreshes where owner = ${OWNER}) as nft_refreshes,
           (select coalesce(array_agg(dataset || ' ' || to_char(last_success_tick at time zone 'UTC', 'HH24:MI') order by dataset), '{}')
              from dataset_watermarks) as watermarks`;
  return row!;
}

describe('an answer without a list (status 200)', () => {
  beforeAll(async () => {
    pipeline.answer('positions', JSON.stringify({ data: positions }));
    pipeline.answer('nfts', JSON.stringify(groups));
    pipeline.answer('prices', JSON.stringify(prices(GOOD_TICK)));
    const [position] = positionJobs([WATCHED], GOOD_TICK, false);
    const [nft] = nftJobs([WATCHED], GOOD_TICK);
    const [price] = priceJobs([SUI], GOOD_TICK);
    for (const [queue, planned] of [
      ['positions', position],
      ['nfts', nft],
      ['prices', price],
    ] as const)
      expect((await runJob(queue, planned!)).state).toBe('completed');
    expect(await holdings()).toEqual({
      open: 10,
      held: 10,
      position_refreshes: 1,
      nft_refreshes: 1,
      watermarks: ['nfts 12:00', 'positions 12:00', 'prices 12:00'],
    });
  });

  LISTLESS.forEach(({ name, body, reason }, index) => {
    it(`${name}: each dataset's job is quarantined whole at its first request, and the wallet keeps what it holds`, async () => {
      const tick = new Date(GOOD_TICK.getTime() + (index + 1) * 15 * 60_000);
      const text = JSON.stringify(body);
      for (const queue of ['positions', 'nfts', 'prices'] as const) pipeline.answer(queue, text);
      const before = await holdings();
      const jobs = [
        ['positions', positionJobs([WATCHED], tick, false)[0]!, OWNER],
        ['nfts', nftJobs([WATCHED], tick)[0]!, OWNER],
        ['prices', priceJobs([SUI], tick)[0]!, priceJobs([SUI], tick)[0]!.data.target],
      ] as const;
      for (const [dataset, planned, target] of jobs) {
        // Not retried: the next tick asks again, and a retry would spend the quota of other targets.
        expect(await runJob(dataset, planned), dataset).toEqual({ state: 'completed', attempts: 1, requests: 1 });
        expect(await runOf(dataset, target, tick), dataset).toEqual({
          status: 'quarantined',
          attempts: 1,
          rows_written: 0,
          error: expect.stringMatching(reason),
        });
        expect(await quarantinedBodies(dataset, target, tick), dataset).toEqual([text]);
      }
      // Nothing closed, released, refreshed or made fresh.
      expect(await holdings()).toEqual(before);
      const counts = await loadFailureCounts(pipeline.harness.database);
      expect(counts.find((row) => row.dataset === 'positions')).toMatchObject({
        quarantined: index + 1,
        lastQuarantineReason: expect.stringMatching(reason),
      });
    });
  });

  it('only an explicit empty list closes what was held', async () => {
    const tick = new Date('2026-11-21T14:00:00Z');
    pipeline.answer('positions', JSON.stringify({ data: [] }));
    pipeline.answer('nfts', JSON.stringify([]));
    expect(await runJob('positions', positionJobs([WATCHED], tick, false)[0]!)).toMatchObject({ state: 'completed' });
    expect(await runJob('nfts', nftJobs([WATCHED], tick)[0]!)).toMatchObject({ state: 'completed' });
    expect(await holdings()).toMatchObject({ open: 0, held: 0, position_refreshes: 2, nft_refreshes: 2 });
  });
});
