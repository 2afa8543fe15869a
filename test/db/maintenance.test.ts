import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commitJob,
  compactPriceIndexes,
  detachOldPricePartitions,
  ensurePartitions,
  PARTITIONED_TABLES,
  pruneRawResponses,
  quarantinePayload,
  readRawResponses,
  writeTokenPrices,
} from '../../src/db/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertZlibRawBody } from '../support/zlib-raw-body.ts';
import { priceRows, run, SUI } from './job-helpers.ts';

const NOW = new Date('2026-11-21T03:30:00Z');
const DAY = 86_400_000;

describe('maintenance', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const partitionsOf = async (table: string) =>
    (
      await database.sql`
    select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = ${table}::regclass order by 1`
    ).map((r) => r.relname as string);

  it("creates every partitioned table's monthly partitions ahead, once", async () => {
    await expect(ensurePartitions(database, { from: NOW, to: new Date(NOW.getTime() + 62 * DAY) })).resolves.toBe(
      3 * PARTITIONED_TABLES.length,
    );
    await expect(ensurePartitions(database, { from: NOW, to: new Date(NOW.getTime() + 62 * DAY) })).resolves.toBe(0);
    for (const table of PARTITIONED_TABLES)
      expect(await partitionsOf(table)).toEqual([`${table}_p2026_11`, `${table}_p2026_12`, `${table}_p2027_01`]);
  });

  it('lets concurrent writers create the same missing month partitions', async () => {
    const old = new Date('2015-03-10T00:00:00Z');
    const price = (coin: string) => ({
      contract_address: coin,
      symbol: 'X',
      price: 1,
      timestamp: old.getTime() / 1000,
    });
    const jobs = ['0x2::sui::SUI', '0x3::a::A', '0x4::b::B', '0x5::c::C'].map((coin, i) =>
      commitJob(database, {
        run: run('prices', `concurrent-${i}`, NOW),
        raw: [],
        write: (tx) => writeTokenPrices(tx, priceRows([price(coin)], NOW)),
      }),
    );
    await expect(Promise.all(jobs)).resolves.toHaveLength(4);
    expect(await partitionsOf('token_price_points')).toContain('token_price_points_p2015_03');
    await expect(database.sql`select count(*)::int as n from token_prices where price_time = ${old}`).resolves.toEqual([
      { n: 4 },
    ]);
  });

  it('prunes raw responses past retention, keeping quarantined bodies, and the zlib dictionaries only pruned ones used', async () => {
    const body = (daysAgo: number) => JSON.stringify({ n: daysAgo, data: [{ id: '0x1', value: daysAgo }] });
    const raw = (daysAgo: number, target: string) => ({
      dataset: 'prices',
      endpoint: '/tokens/sui/price',
      target,
      tick: NOW,
      httpStatus: 200,
      body: body(daysAgo),
      receivedAt: new Date(NOW.getTime() - daysAgo * DAY),
    });
    for (const daysAgo of [20, 13, 0]) {
      await commitJob(database, {
        run: run('prices', `a-${daysAgo}`, NOW),
        raw: [raw(daysAgo, 'a')],
        write: async () => ({}),
      });
    }
    await quarantinePayload(database, { run: run('prices', 'q', NOW), raw: raw(30, 'q'), reason: 'bad' });
    // Bodies in the zlib form of the release before migration 0017, each with its dictionary.
    for (const daysAgo of [15, 13]) {
      const at = new Date(NOW.getTime() - daysAgo * DAY);
      await insertZlibRawBody(database.sql, { target: 'zlib', tick: at, body: body(daysAgo), dictionary: body(99) });
    }
    const dictionaries = async () =>
      (await database.sql`select created_at from raw_body_dictionaries order by created_at`).map(
        (row) => row.created_at as Date,
      );
    await expect(pruneRawResponses(database, 14, NOW)).resolves.toBe(3);
    await expect(readRawResponses(database).then((rows) => rows.map((row) => row.body).reverse())).resolves.toEqual([
      body(13),
      body(0),
      body(13),
    ]);
    await expect(database.sql`select body, raw_response_id from quarantined_payloads`).resolves.toEqual([
      { body: body(30), raw_response_id: null },
    ]);
    expect(await dictionaries()).toEqual([new Date(NOW.getTime() - 13 * DAY)]);
    await expect(pruneRawResponses(database, 14, NOW)).resolves.toBe(0);
  });

  it('reads a body stored as text before migration 0007 as it was stored', async () => {
    await database.sql`insert into raw_responses (received_at, dataset, endpoint, target, tick, http_status, sha256, body)
      values (${NOW}, 'prices', '/tokens/sui/price', 'legacy', ${NOW}, 200, 'x', '{"old":true}')`;
    await expect(
      readRawResponses(database, { target: 'legacy' }).then((rows) => rows.map((row) => row.body)),
    ).resolves.toEqual(['{"old":true}']);
  });

  it('detaches old price partitions into the archive schema, and a later write into such a month starts a new one', async () => {
    const price = (at: string) => ({
      contract_address: '0x2::sui::SUI',
      symbol: 'SUI',
      price: 3,
      timestamp: new Date(at).getTime() / 1000,
    });
    const write = (at: string) =>
      commitJob(database, {
        run: run('prices', `backfill-${at}`, NOW),
        raw: [],
        write: (tx) => writeTokenPrices(tx, priceRows([price(at)], NOW)),
      });
    await write('2026-06-10T00:00:00Z');
    await write('2026-09-30T23:59:00Z');
    await expect(detachOldPricePartitions(database, 0, NOW)).resolves.toEqual([]);
    // 60 days before Nov 21 is Sep 22: March 2015 and June (ends Jul 1) go, September (ends Oct 1) stays.
    await expect(detachOldPricePartitions(database, 60, NOW)).resolves.toEqual([
      'chaintap_archive.token_price_points_p2015_03',
      'chaintap_archive.token_price_points_p2026_06',
    ]);
    expect(await partitionsOf('token_price_points')).not.toContain('token_price_points_p2026_06');
    await expect(
      database.sql`select count(*)::int as n from chaintap_archive.token_price_points_p2026_06`,
    ).resolves.toEqual([{ n: 1 }]);
    await expect(database.sql`select count(*)::int as n from token_prices where coin_type = ${SUI}`).resolves.toEqual([
      { n: 1 },
    ]);

    await write('2026-06-11T00:00:00Z');
    expect(await partitionsOf('token_price_points')).toContain('token_price_points_p2026_06');
    const detachedAgain = await detachOldPricePartitions(database, 60, NOW);
    expect(detachedAgain).toEqual([expect.stringMatching(/^chaintap_archive\.token_price_points_p2026_06_\d+$/)]);
  });

  it('rebuilds the price key indexes of this month and the last, prices intact', async () => {
    const price = (at: string) => ({
      contract_address: '0x2::sui::SUI',
      symbol: 'SUI',
      price: '3.25',
      timestamp: new Date(at).getTime() / 1000,
    });
    for (const at of ['2026-10-31T23:59:00Z', '2026-11-20T00:00:00Z']) {
      await commitJob(database, {
        run: run('prices', `compact-${at}`, NOW),
        raw: [],
        write: (tx) => writeTokenPrices(tx, priceRows([price(at)], NOW)),
      });
    }
    const before = await database.sql`select * from token_prices order by price_time`;
    await expect(compactPriceIndexes(database, NOW)).resolves.toEqual([
      'token_price_points_p2026_10_pkey',
      'token_price_points_p2026_11_pkey',
    ]);
    await expect(database.sql`select * from token_prices order by price_time`).resolves.toEqual(before);
    const [valid] =
      await database.sql`select bool_and(x.indisvalid) as ok from pg_index x join pg_class c on c.oid = x.indexrelid where c.relname like 'token_price_points_p%_pkey'`;
    expect(valid).toEqual({ ok: true });
  });
});
