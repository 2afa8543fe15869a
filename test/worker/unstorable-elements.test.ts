import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRawResponses } from '../../src/db/index.ts';
import { MAX_JSON_DEPTH } from '../../src/db/storable-text.ts';
import { nftJobs, positionJobs, priceJobs } from '../../src/scheduler/job-builders.ts';
import { startScriptedPipeline, type ScriptedPipeline } from '../support/scripted-upstream.ts';

// Elements Postgres cannot store as they are, each inside an otherwise good answer (issue 24, item
// 2): identifiers too long for a key or holding a NUL or a lone surrogate, free text holding one,
// nesting deeper than JSON and jsonb take. Through the real client, queue and Postgres.
let pipeline: ScriptedPipeline;
beforeAll(async () => {
  pipeline = await startScriptedPipeline();
});
afterAll(async () => pipeline?.close());
const sql = () => pipeline.harness.database.sql;

const OWNER = `0x${'d5'.repeat(32)}`;
const SUI = '0x2::sui::SUI';
const USDC = `0x${'5'.repeat(64)}::usdc::USDC`;
const WATCHED = { address: OWNER, chain: null, protocols: null, nftChain: 'ALL', includePnl: false } as const;
const TICK_1 = new Date('2026-11-21T12:00:00Z');
const TICK_2 = new Date('2026-11-21T12:15:00Z');

/**
 * Stands for a value nested 5,000 lists deep in the body sent: deeper than JSON.stringify can write
 * (so the body is spliced as text) and than the element bound, though JSON.parse reads it.
 */
const DEEP = '(nested 5000 deep)';
const deepText = `${'['.repeat(5_000)}"bottom"${']'.repeat(5_000)}`;

const position = (positionId: string, more: Record<string, unknown> = {}) => ({
  positionId,
  chain: 'SUI',
  type: 'AMM',
  current: { tokens: [{ amount: 1, value: 2, token: SUI }], yield: [] },
  meta: { protocol: { name: 'Cetus', protocol: 'cetus' } },
  ...more,
});
const group = (collectionId: string, tokens: Record<string, unknown>[], collection: Record<string, unknown> = {}) => ({
  collectionId,
  collection: { name: collectionId, chain: 'SUI', ...collection },
  tokens,
  floorPrice: 1,
  marketPrice: 2,
});

/** Runs the job of `queue` at `tick` for the answer `body`; expects it to succeed at its first request. */
async function ingest(queue: 'positions' | 'nfts' | 'prices', tick: Date, body: unknown): Promise<string> {
  const text = JSON.stringify(body).replaceAll(JSON.stringify(DEEP), deepText);
  pipeline.answer(queue, text);
  const planned =
    queue === 'positions'
      ? positionJobs([WATCHED], tick, false)[0]!
      : queue === 'nfts'
        ? nftJobs([WATCHED], tick)[0]!
        : priceJobs([SUI, USDC], tick)[0]!;
  expect(await pipeline.runJob(queue, planned)).toEqual({ state: 'completed', attempts: 1, requests: 1 });
  return text;
}

async function run(dataset: string, tick: Date) {
  const [row] = await sql()<{ status: string; elements_stored: number; elements_quarantined: number }[]>`
    select status, elements_stored, elements_quarantined from ingestion_runs
    where dataset = ${dataset} and tick = ${tick}`;
  return row;
}

async function quarantined(dataset: string, tick: Date) {
  return sql()<{ element_index: number; reason: string }[]>`
    select element_index, reason from quarantined_payloads
    where dataset = ${dataset} and tick = ${tick} order by element_index`;
}

async function drifts(dataset: string) {
  const rows = await sql()<{ field: string; shape: string }[]>`
    select field, shape from schema_drifts where dataset = ${dataset} order by field, shape`;
  return rows.map((row) => `${row.field} ${row.shape}`);
}

/** The body stored for the job, decompressed: exactly what was sent. */
async function rawBody(dataset: string, tick: Date): Promise<string> {
  const [raw] = await readRawResponses(pipeline.harness.database, { dataset, tick });
  return raw!.body;
}

describe('an element Postgres cannot store, in an otherwise good answer', () => {
  it('positions: each is quarantined alone or stored escaped; the others are stored and nothing is closed', async () => {
    await ingest('positions', TICK_1, {
      data: ['pos-0', 'pos-4', 'pos-5', 'pos-6', 'pos-7'].map((id) => position(id)),
    });
    const sent = await ingest('positions', TICK_2, {
      data: [
        position('pos-0'),
        position('x'.repeat(10_000)),
        position('pos-\u0000-2'),
        position('pos-\ud800-3'),
        position('pos-4', { meta: { protocol: { name: 'Kri\u0000ya', protocol: 'kriya' } } }),
        position('pos-5', { type: 'AMM\ud800', note: { 'key\u0000': 'value\udc00' } }),
        position('pos-6', { deep: DEEP }),
        position('pos-7', { meta: { protocol: { name: 'Long', protocol: 'p'.repeat(2_000) } } }),
      ],
    });

    expect(await run('positions', TICK_2)).toEqual({
      status: 'succeeded',
      elements_stored: 4,
      elements_quarantined: 4,
    });
    expect(await quarantined('positions', TICK_2)).toEqual([
      { element_index: 1, reason: 'positionId: 10000 bytes long, more than the 1024 a key may hold' },
      { element_index: 2, reason: 'positionId: holds a NUL character, which Postgres cannot store' },
      { element_index: 3, reason: 'positionId: holds a lone UTF-16 surrogate, which Postgres cannot store' },
      { element_index: 6, reason: `nested deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
    const stored = await sql()<{ position_id: string; type: string; protocol_id: string | null; extra: unknown }[]>`
      select p.position_id, p.type, p.protocol_id, s.extra from positions p
      join position_snapshots s on s.owner = p.owner and s.position_id = p.position_id and s.snapshot_at = ${TICK_2}
      where p.owner = ${OWNER} order by p.position_id`;
    expect(stored).toEqual([
      { position_id: 'pos-0', type: 'AMM', protocol_id: 'cetus', extra: null },
      { position_id: 'pos-4', type: 'AMM', protocol_id: 'kriya', extra: null },
      // Free text keeps what Postgres cannot hold as its JSON escape.
      {
        position_id: 'pos-5',
        type: 'AMM\\ud800',
        protocol_id: 'cetus',
        extra: { note: { 'key\\u0000': 'value\\udc00' } },
      },
      // A protocol id too long to be a key: none read (the one known from 12:00 stays), its meta
      // kept as received.
      {
        position_id: 'pos-7',
        type: 'AMM',
        protocol_id: 'cetus',
        extra: { meta: { protocol: { name: 'Long', protocol: 'p'.repeat(2_000) } } },
      },
    ]);
    const [kriya] = await sql()`select name from protocols where protocol_id = 'kriya'`;
    expect(kriya).toEqual({ name: 'Kri\\u0000ya' });
    // pos-6 was quarantined, not closed: an answer with an element it could not read closes nothing.
    const [{ open }] = await sql()<{ open: number }[]>`
      select count(*)::int as open from positions where owner = ${OWNER} and closed_at is null`;
    expect(open).toBe(5);
    expect(await drifts('positions')).toEqual(['positions.* unstorable_text', 'positions.meta.protocol oversized_key']);
    expect(await rawBody('positions', TICK_2)).toBe(sent);
  });

  it('NFT groups: a collection or token id that cannot be a key quarantines its group; free text is stored escaped', async () => {
    await ingest('nfts', TICK_1, [
      group('c0', [{ tokenId: 't0' }]),
      group('c2', [{ tokenId: 't2' }]),
      group('c3', [{ tokenId: 't3' }]),
      group('c4', [{ tokenId: 't4' }]),
    ]);
    const sent = await ingest('nfts', TICK_2, [
      group('c0', [{ tokenId: 't0' }]),
      group('c'.repeat(5_000), [{ tokenId: 't1' }]),
      group('c2', [{ tokenId: 't\u0000' }]),
      group('c3', [{ tokenId: 't3' }], { name: 'N\u0000ame', description: 'half \ud83d' }),
      group('c4', [{ tokenId: 't4', name: 'Ape \udc00' }]),
    ]);

    expect(await run('nfts', TICK_2)).toEqual({ status: 'succeeded', elements_stored: 3, elements_quarantined: 2 });
    expect(await quarantined('nfts', TICK_2)).toEqual([
      { element_index: 1, reason: 'collectionId: 5000 bytes long, more than the 1024 a key may hold' },
      { element_index: 2, reason: 'tokens[0].tokenId: holds a NUL character, which Postgres cannot store' },
    ]);
    const collections = await sql()`
      select collection_id, name, description from nft_collections where collection_id in ('c3', 'c4') order by 1`;
    expect(collections).toEqual([
      { collection_id: 'c3', name: 'N\\u0000ame', description: 'half \\ud83d' },
      { collection_id: 'c4', name: 'c4', description: null },
    ]);
    const tokens = await sql()`
      select collection_id, token_id, name, released_at from nft_tokens where owner = ${OWNER} order by 1, 2`;
    expect(tokens).toEqual([
      { collection_id: 'c0', token_id: 't0', name: null, released_at: null },
      // c2's group was quarantined: its token is still held.
      { collection_id: 'c2', token_id: 't2', name: null, released_at: null },
      { collection_id: 'c3', token_id: 't3', name: null, released_at: null },
      { collection_id: 'c4', token_id: 't4', name: 'Ape \\udc00', released_at: null },
    ]);
    expect(await drifts('nfts')).toEqual(['nfts.* unstorable_text']);
    expect(await rawBody('nfts', TICK_2)).toBe(sent);
  });

  it('prices: an unreadable entry is quarantined with its reason stored escaped; an oversized source is dropped', async () => {
    const time = TICK_2.getTime() / 1000;
    const sent = await ingest('prices', TICK_2, {
      data: [
        { contract_address: SUI, symbol: 'S\u0000UI', price: 1.5, timestamp: time, source: 'feed' },
        { contract_address: '0x2::bad\u0000::X', price: 1, timestamp: time },
        { contract_address: USDC, symbol: 'USDC', price: 1, timestamp: time, source: 's'.repeat(5_000) },
        { contract_address: USDC, price: 1, timestamp: time + 60, more: DEEP },
      ],
    });

    expect(await run('prices', TICK_2)).toEqual({ status: 'succeeded', elements_stored: 2, elements_quarantined: 2 });
    const reasons = await quarantined('prices', TICK_2);
    expect(reasons.map((row) => row.element_index)).toEqual([1, 3]);
    expect(reasons[0]!.reason).toMatch(/^contract_address: invalid coin type "0x2::bad\\u0000::X"/);
    const stored = await sql()`
      select coin_type, symbol, price::text, source from token_prices p join tokens t using (coin_type)
      where price_time = ${TICK_2} order by coin_type`;
    expect(stored).toEqual([
      { coin_type: `0x${'0'.repeat(63)}2::sui::SUI`, symbol: 'S\\u0000UI', price: '1.5', source: 'feed' },
      { coin_type: USDC, symbol: 'USDC', price: '1', source: null },
    ]);
    expect(await drifts('prices')).toEqual(['prices.* unstorable_text', 'prices.source oversized_key']);
    expect(await rawBody('prices', TICK_2)).toBe(sent);
  });

  it('a body with a raw NUL byte, which is not JSON, is kept in raw_responses and its failure recorded', async () => {
    const tick = new Date('2026-11-21T12:30:00Z');
    const body = Buffer.from('{"data":[{"positionId":"p\u0000","chain":"SUI","type":"AMM"}]}');
    pipeline.answer('positions', body);
    // Not JSON: a transient fault, retried, then failed for good with its body kept.
    expect(await pipeline.runJob('positions', positionJobs([WATCHED], tick, false)[0]!)).toEqual({
      state: 'failed',
      attempts: 3,
      requests: 3,
    });
    const [failure] = await sql()<{ status: string; error: string }[]>`
      select status, error from ingestion_runs where dataset = 'positions' and tick = ${tick}`;
    expect(failure).toMatchObject({ status: 'failed', error: expect.stringContaining('"p\\u0000"') });
    expect(await rawBody('positions', tick)).toBe(body.toString());
  });
});
