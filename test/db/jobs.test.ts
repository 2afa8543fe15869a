import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitJob, quarantinePayload, readRawResponses, recordJobFailure, writeTokenPrices, type RawRecord } from '../../src/db/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { priceRows, run } from './job-helpers.js';

const TICK = new Date('2026-11-21T12:00:00Z');
const BODY = '{"data":[{"contract_address":"0x2::sui::SUI","symbol":"SUI","price":3.2,"timestamp":1795262400}]}';
const raw = (body = BODY, target = 'batch-1', httpStatus = 200): RawRecord => ({
  dataset: 'prices', endpoint: '/tokens/sui/price', target, tick: TICK, httpStatus, body, receivedAt: TICK,
});
const rows = () => priceRows([{ contract_address: '0x2::sui::SUI', symbol: 'SUI', price: 3.2, timestamp: 1795262400 }], TICK);

describe('job transactions', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const count = async (table: string) => (await database.sql.unsafe(`select count(*)::int as n from ${table}`))[0]!.n as number;
  const runRow = async (target: string) => {
    const [row] = await database.sql`
      select status, attempts, http_status, rows_written, error from ingestion_runs where dataset = 'prices' and target = ${target} and tick = ${TICK}`;
    return row;
  };

  it('commits nothing at all when the write fails', async () => {
    await expect(commitJob(database, {
      run: run('prices', 'broken', TICK),
      raw: [raw(BODY, 'broken')],
      write: async (tx) => {
        await writeTokenPrices(tx, rows());
        throw new Error('disk on fire');
      },
    })).rejects.toThrow('disk on fire');
    expect([await count('token_price_points'), await count('tokens'), await count('raw_responses'), await count('ingestion_runs')]).toEqual([0, 0, 0, 0]);
  });

  it('commits rows, the raw body (with its sha256) and the run together', async () => {
    const result = await commitJob(database, { run: run('prices', 'batch-1', TICK), raw: [raw()], httpStatus: 200, write: (tx) => writeTokenPrices(tx, rows()) });
    expect(result).toEqual({ rowsWritten: 2, byTable: { tokens: 1, token_prices: 1 } });
    expect(await runRow('batch-1')).toEqual({ status: 'succeeded', attempts: 1, http_status: 200, rows_written: 2, error: null });
    const [stored] = await readRawResponses(database.sql);
    expect(stored).toMatchObject({
      endpoint: '/tokens/sui/price', target: 'batch-1', tick: TICK, httpStatus: 200, sha256: createHash('sha256').update(BODY).digest('hex'), body: BODY,
    });
    await expect(database.sql`select dataset, target, last_success_tick from dataset_freshness`).resolves.toEqual([
      { dataset: 'prices', target: 'batch-1', last_success_tick: TICK },
    ]);
  });

  it('stores the same body of the same job once', async () => {
    await commitJob(database, { run: { ...run('prices', 'batch-1', TICK), attempts: 2 }, raw: [raw()], write: (tx) => writeTokenPrices(tx, rows()) });
    expect(await count('raw_responses')).toBe(1);
    expect(await runRow('batch-1')).toMatchObject({ status: 'succeeded', attempts: 2, rows_written: 0 });
  });

  it('records retrying and failed attempts with the error body, never hiding a success', async () => {
    await recordJobFailure(database, { run: run('prices', 'batch-2', TICK), final: false, error: 'UpstreamError: 503', httpStatus: 503, raw: raw('upstream down', 'batch-2', 503) });
    expect(await runRow('batch-2')).toEqual({ status: 'retrying', attempts: 1, http_status: 503, rows_written: 0, error: 'UpstreamError: 503' });
    await recordJobFailure(database, { run: { ...run('prices', 'batch-2', TICK), attempts: 5 }, final: true, error: 'UpstreamError: 503', httpStatus: 503 });
    expect(await runRow('batch-2')).toMatchObject({ status: 'failed', attempts: 5 });
    await recordJobFailure(database, { run: run('prices', 'batch-1', TICK), final: true, error: 'late failure' });
    expect(await runRow('batch-1')).toMatchObject({ status: 'succeeded', error: null });
    const [body] = await readRawResponses(database.sql, { target: 'batch-2' });
    expect(body).toMatchObject({ body: 'upstream down', httpStatus: 503 });
  });

  it('quarantines a body with its reason, once, and records the outcome', async () => {
    const bad = '{"data":"not an array"}';
    for (let i = 0; i < 2; i++) await quarantinePayload(database, { run: run('prices', 'batch-3', TICK), raw: raw(bad, 'batch-3'), reason: 'data: expected array' });
    const quarantined = await database.sql`select dataset, endpoint, target, tick, http_status, reason, body, raw_response_id is not null as linked from quarantined_payloads`;
    expect(quarantined).toEqual([
      { dataset: 'prices', endpoint: '/tokens/sui/price', target: 'batch-3', tick: TICK, http_status: 200, reason: 'data: expected array', body: bad, linked: true },
    ]);
    expect(await runRow('batch-3')).toMatchObject({ status: 'quarantined', error: 'data: expected array', rows_written: 0 });
  });

  it('keeps a body with NUL characters as received and hashes the original', async () => {
    const body = 'bad\u0000body';
    await quarantinePayload(database, { run: run('prices', 'batch-4', TICK), raw: raw(body, 'batch-4'), reason: 'not JSON' });
    const [row] = await readRawResponses(database.sql, { target: 'batch-4' });
    expect(row).toMatchObject({ body, sha256: createHash('sha256').update(body).digest('hex') });
  });

  it('compresses a target\'s answers against an earlier one, gives every body back exactly, and starts a new dictionary when it stops paying', async () => {
    const answer = (tick: number, positions: string[]) => JSON.stringify({
      data: positions.map((id, i) => ({ positionId: id, owner: '0xabc', value: 1000 + tick * 7 + i, token: { address: `0x${id.repeat(8)}::coin::C`, symbol: 'C' } })),
    });
    const first = ['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'a7', 'b8'];
    const other = ['99', '88', '77', '66', '55', '44', '33', '22'];
    const bodies = [answer(0, first), answer(1, first), answer(2, first), answer(3, other), answer(4, other)];
    for (const [i, body] of bodies.entries()) {
      const tick = new Date(TICK.getTime() + i * 900_000);
      const record: RawRecord = { dataset: 'positions', endpoint: '/v2/address/0xabc/positions', target: '0xabc', tick, httpStatus: 200, body, receivedAt: tick };
      await commitJob(database, { run: run('positions', '0xabc', tick), raw: [record], write: async () => ({}) });
    }
    const stored = (await readRawResponses(database.sql, { target: '0xabc' })).reverse();
    expect(stored.map((row) => row.body)).toEqual(bodies);
    const rows = await database.sql<{ dictionary: string; bytes: number }[]>`
      select dictionary_id::text as dictionary, octet_length(body_zlib) as bytes from raw_responses where target = '0xabc' order by tick`;
    // One dictionary for the first answers, a new one once the positions changed.
    expect(rows.map((row) => row.dictionary)).toEqual([rows[0]!.dictionary, rows[0]!.dictionary, rows[0]!.dictionary, rows[3]!.dictionary, rows[3]!.dictionary]);
    expect(rows[3]!.dictionary).not.toBe(rows[0]!.dictionary);
    for (const row of rows) expect(row.bytes).toBeLessThan(bodies[0]!.length / 8);
  });

  it('moves the watermark only forward', async () => {
    const earlier = new Date(TICK.getTime() - 60_000);
    await commitJob(database, { run: run('prices', 'batch-1', earlier), raw: [], write: async () => ({}) });
    const [row] = await database.sql`select last_success_tick from dataset_freshness where target = 'batch-1'`;
    expect(row).toEqual({ last_success_tick: TICK });
  });
});
