import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commitJob,
  quarantinePayload,
  readRawResponses,
  recordJobFailure,
  writeTokenPrices,
  type RawRecord,
} from '../../src/db/index.ts';
import { createDatabase } from '../../src/db/client.ts';
import { recordSchemaDrifts } from '../../src/db/stores/schema-drifts.ts';
import { loadRecentSchemaDrifts } from '../../src/db/stores/status.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { priceRows, run } from './job-helpers.ts';

const TICK = new Date('2026-11-21T12:00:00Z');
const BODY = '{"data":[{"contract_address":"0x2::sui::SUI","symbol":"SUI","price":3.2,"timestamp":1795262400}]}';
const raw = (body = BODY, target = 'batch-1', httpStatus = 200): RawRecord => ({
  dataset: 'prices',
  endpoint: '/tokens/sui/price',
  target,
  tick: TICK,
  httpStatus,
  body,
  receivedAt: TICK,
});
const rows = () =>
  priceRows([{ contract_address: '0x2::sui::SUI', symbol: 'SUI', price: 3.2, timestamp: 1795262400 }], TICK);

describe('job transactions', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const count = async (table: string) =>
    (await database.sql.unsafe(`select count(*)::int as n from ${table}`))[0]!.n as number;
  const runRow = async (target: string) => {
    const [row] = await database.sql`
      select status, attempts, http_status, rows_written, error from ingestion_runs where dataset = 'prices' and target = ${target} and tick = ${TICK}`;
    return row;
  };

  it('commits nothing at all when the write fails', async () => {
    await expect(
      commitJob(database, {
        run: run('prices', 'broken', TICK),
        raw: [raw(BODY, 'broken')],
        write: async (tx) => {
          await writeTokenPrices(tx, rows());
          throw new Error('disk on fire');
        },
      }),
    ).rejects.toThrow('disk on fire');
    expect([
      await count('token_price_points'),
      await count('tokens'),
      await count('raw_responses'),
      await count('ingestion_runs'),
    ]).toEqual([0, 0, 0, 0]);
  });

  it('commits nothing of a job, nor of its failure or quarantine, when its fence throws last (a lost job lock)', async () => {
    const lost = async () => {
      throw new Error('the lock is gone');
    };
    await expect(
      commitJob(database, {
        run: run('prices', 'fenced', TICK),
        raw: [raw(BODY, 'fenced')],
        write: (tx) => writeTokenPrices(tx, rows()),
        fence: lost,
      }),
    ).rejects.toThrow('the lock is gone');
    await expect(
      recordJobFailure(database, {
        run: run('prices', 'fenced', TICK),
        final: true,
        error: 'x',
        raw: raw(BODY, 'fenced'),
        fence: lost,
      }),
    ).rejects.toThrow('the lock is gone');
    await expect(
      quarantinePayload(database, {
        run: run('prices', 'fenced', TICK),
        raw: raw(BODY, 'fenced'),
        reason: 'x',
        fence: lost,
      }),
    ).rejects.toThrow('the lock is gone');
    expect([
      await count('token_price_points'),
      await count('raw_responses'),
      await count('ingestion_runs'),
      await count('quarantined_payloads'),
    ]).toEqual([0, 0, 0, 0]);
  });

  it('commits rows, the raw body (with its sha256) and the run together', async () => {
    const result = await commitJob(database, {
      run: run('prices', 'batch-1', TICK),
      raw: [raw()],
      httpStatus: 200,
      write: (tx) => writeTokenPrices(tx, rows()),
    });
    expect(result).toEqual({ rowsWritten: 2, byTable: { tokens: 1, token_prices: 1 } });
    expect(await runRow('batch-1')).toEqual({
      status: 'succeeded',
      attempts: 1,
      http_status: 200,
      rows_written: 2,
      error: null,
    });
    const [stored] = await readRawResponses(database);
    expect(stored).toMatchObject({
      endpoint: '/tokens/sui/price',
      target: 'batch-1',
      tick: TICK,
      httpStatus: 200,
      sha256: createHash('sha256').update(BODY).digest('hex'),
      body: BODY,
    });
    await expect(database.sql`select dataset, target, last_success_tick from dataset_freshness`).resolves.toEqual([
      { dataset: 'prices', target: 'batch-1', last_success_tick: TICK },
    ]);
  });

  it('stores the same body of the same job once', async () => {
    await commitJob(database, {
      run: { ...run('prices', 'batch-1', TICK), attempts: 2 },
      raw: [raw()],
      write: (tx) => writeTokenPrices(tx, rows()),
    });
    expect(await count('raw_responses')).toBe(1);
    expect(await runRow('batch-1')).toMatchObject({ status: 'succeeded', attempts: 2, rows_written: 0 });
  });

  it('records retrying and failed attempts with the error body, never hiding a success', async () => {
    await recordJobFailure(database, {
      run: run('prices', 'batch-2', TICK),
      final: false,
      error: 'UpstreamError: 503',
      httpStatus: 503,
      raw: raw('upstream down', 'batch-2', 503),
    });
    expect(await runRow('batch-2')).toEqual({
      status: 'retrying',
      attempts: 1,
      http_status: 503,
      rows_written: 0,
      error: 'UpstreamError: 503',
    });
    await recordJobFailure(database, {
      run: { ...run('prices', 'batch-2', TICK), attempts: 5 },
      final: true,
      error: 'UpstreamError: 503',
      httpStatus: 503,
    });
    expect(await runRow('batch-2')).toMatchObject({ status: 'failed', attempts: 5 });
    await recordJobFailure(database, { run: run('prices', 'batch-1', TICK), final: true, error: 'late failure' });
    expect(await runRow('batch-1')).toMatchObject({ status: 'succeeded', error: null });
    const [body] = await readRawResponses(database, { target: 'batch-2' });
    expect(body).toMatchObject({ body: 'upstream down', httpStatus: 503 });
  });

  it('quarantines a body with its reason, once, and records the outcome', async () => {
    const bad = '{"data":"not an array"}';
    for (let i = 0; i < 2; i++)
      await quarantinePayload(database, {
        run: run('prices', 'batch-3', TICK),
        raw: raw(bad, 'batch-3'),
        reason: 'data: expected array',
      });
    const quarantined =
      await database.sql`select dataset, endpoint, target, tick, http_status, reason, body, raw_response_id is not null as linked from quarantined_payloads`;
    expect(quarantined).toEqual([
      {
        dataset: 'prices',
        endpoint: '/tokens/sui/price',
        target: 'batch-3',
        tick: TICK,
        http_status: 200,
        reason: 'data: expected array',
        body: bad,
        linked: true,
      },
    ]);
    expect(await runRow('batch-3')).toMatchObject({
      status: 'quarantined',
      error: 'data: expected array',
      rows_written: 0,
    });
  });

  it('keeps a body with NUL characters as received and hashes the original', async () => {
    const body = 'bad\u0000body';
    await quarantinePayload(database, {
      run: run('prices', 'batch-4', TICK),
      raw: raw(body, 'batch-4'),
      reason: 'not JSON',
    });
    const [row] = await readRawResponses(database, { target: 'batch-4' });
    expect(row).toMatchObject({ body, sha256: createHash('sha256').update(body).digest('hex') });
  });

  it('moves the watermark only forward', async () => {
    const earlier = new Date(TICK.getTime() - 60_000);
    await commitJob(database, { run: run('prices', 'batch-1', earlier), raw: [], write: async () => ({}) });
    const [row] = await database.sql`select last_success_tick from dataset_freshness where target = 'batch-1'`;
    expect(row).toEqual({ last_success_tick: TICK });
  });
});

describe('elements quarantined alone and schema drifts', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('commits the stored rows with one quarantined row per unreadable element and the counts', async () => {
    const elements = {
      stored: 1,
      quarantined: [{ index: 1, element: { symbol: 'NOADDR' }, reason: 'contract_address: missing' }],
    };
    // Twice: the same body for the same job is quarantined once.
    for (let i = 0; i < 2; i++) {
      await commitJob(database, {
        run: run('prices', 'batch-e', TICK),
        raw: [raw(BODY, 'batch-e')],
        write: (tx) => writeTokenPrices(tx, rows()),
        elements,
      });
    }
    const quarantined = await database.sql`
      select element_index, reason, body, raw_response_id is not null as linked from quarantined_payloads where target = 'batch-e'`;
    expect(quarantined).toEqual([
      { element_index: 1, reason: 'contract_address: missing', body: '{"symbol":"NOADDR"}', linked: true },
    ]);
    const [runRow] = await database.sql`
      select status, elements_stored, elements_quarantined from ingestion_runs where target = 'batch-e'`;
    expect(runRow).toEqual({ status: 'succeeded', elements_stored: 1, elements_quarantined: 1 });
  });

  it('records schema drifts by tick: a tick written again changes nothing, a newer one counts once', async () => {
    const drifts = [
      { field: 'prices.price', shape: 'numeric_string', count: 2 },
      { field: 'prices.timestamp', shape: 'value_object', count: 1 },
    ];
    const later = new Date(TICK.getTime() + 60_000);
    const earlier = new Date(TICK.getTime() - 60_000);
    const read = () =>
      database.sql`select field, shape, first_seen_at, last_seen_at, count::int from schema_drifts order by field`;
    await recordSchemaDrifts(database, 'prices', TICK, drifts);
    const once = await read();
    // The same tick again, from this process (skipped) and from another (a new pool): nothing changes.
    await recordSchemaDrifts(database, 'prices', TICK, drifts);
    const other = createDatabase(database.url, { max: 1 });
    try {
      await recordSchemaDrifts(other, 'prices', TICK, drifts);
    } finally {
      await other.close();
    }
    expect(await read()).toEqual(once);
    expect(once).toEqual([
      { field: 'prices.price', shape: 'numeric_string', first_seen_at: TICK, last_seen_at: TICK, count: 1 },
      { field: 'prices.timestamp', shape: 'value_object', first_seen_at: TICK, last_seen_at: TICK, count: 1 },
    ]);
    // A newer tick counts; an older one (a backfill, a late retry) only moves first_seen_at.
    await recordSchemaDrifts(database, 'prices', later, drifts.slice(0, 1));
    await recordSchemaDrifts(database, 'prices', earlier, drifts.slice(0, 1));
    expect((await read())[0]).toEqual({
      field: 'prices.price',
      shape: 'numeric_string',
      first_seen_at: earlier,
      last_seen_at: later,
      count: 2,
    });
    // A tick within what this process recorded is not even sent: the row deleted behind its back stays
    // deleted; another process's pool (which has not recorded it) writes it again.
    await database.sql`delete from schema_drifts where field = 'prices.price'`;
    await recordSchemaDrifts(database, 'prices', TICK, drifts.slice(0, 1));
    expect((await read()).map((row) => row.field)).toEqual(['prices.timestamp']);
    const another = createDatabase(database.url, { max: 1 });
    try {
      await recordSchemaDrifts(another, 'prices', TICK, drifts.slice(0, 1));
    } finally {
      await another.close();
    }
    expect((await read())[0]).toMatchObject({ field: 'prices.price', first_seen_at: TICK, last_seen_at: TICK });
    // What `chaintap status` and the status page show: what a tick of the last 24 hours brought.
    expect(await loadRecentSchemaDrifts(database)).toEqual([]);
    const now = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    await recordSchemaDrifts(database, 'prices', now, drifts.slice(1));
    expect(await loadRecentSchemaDrifts(database)).toEqual([
      {
        dataset: 'prices',
        field: 'prices.timestamp',
        shape: 'value_object',
        firstSeenAt: TICK,
        lastSeenAt: now,
        count: 2,
      },
    ]);
  });

  it('quarantines an answer whose every element is unreadable as one row per element', async () => {
    const elements = [
      { index: 0, element: 17, reason: '(element): expected object' },
      { index: 1, element: { price: 1 }, reason: 'contract_address: missing' },
    ];
    await quarantinePayload(database, {
      run: run('prices', 'batch-q', TICK),
      raw: raw('{"data":[17,{"price":1}]}', 'batch-q'),
      reason: 'cannot normalize: (element): expected object (and 1 more elements)',
      elements,
    });
    const rowsOut = await database.sql`
      select element_index, body from quarantined_payloads where target = 'batch-q' order by element_index`;
    expect(rowsOut).toEqual([
      { element_index: 0, body: '17' },
      { element_index: 1, body: '{"price":1}' },
    ]);
    const [runRow] = await database.sql`
      select status, elements_stored, elements_quarantined from ingestion_runs where target = 'batch-q'`;
    expect(runRow).toEqual({ status: 'quarantined', elements_stored: 0, elements_quarantined: 2 });
  });
});
