import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedPriceTimes, writeTokenPrices } from '../../src/db/index.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import type { PricePoints } from '../../src/db/schema/rows.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { waitFor } from '../support/fault-processes.ts';
import { commit, priceRows, snapshotOf, SUI, USDC } from './job-helpers.ts';

const T0 = new Date('2026-11-21T12:00:00Z');
const seconds = (date: Date) => date.getTime() / 1000;
const minute = (n: number) => new Date(T0.getTime() + n * 60_000);
const entry = (coin: string, price: number | string, at: Date, extra: Record<string, unknown> = {}) => ({
  contract_address: coin,
  symbol: coin.split('::')[2],
  price,
  last24hPrice: 1,
  timestamp: seconds(at),
  decimals: 9,
  source: 'pyth',
  ...extra,
});

describe('writeTokenPrices', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const write = (data: unknown[], fetchedAt: Date, target = 'batch-1', tick = fetchedAt) =>
    commit(database, 'prices', target, tick, (tx) => writeTokenPrices(tx, priceRows(data, fetchedAt)));

  it('stores prices readable through token_prices, numbers exact', async () => {
    const result = await write(
      [
        entry('0x2::sui::SUI', '1234.5', minute(0), { last24hPrice: 1e-9 }),
        entry(USDC, 123456789012.12346, minute(0), { last24hPrice: null, source: null }),
      ],
      minute(0.5),
    );
    expect(result.byTable).toEqual({ tokens: 2, token_prices: 2 });
    const rows = await database.sql`select * from token_prices order by coin_type`;
    expect(rows).toEqual([
      {
        coin_type: SUI,
        price_time: minute(0),
        price: '1234.5',
        price_24h_ago: '0.000000001',
        source: 'pyth',
        fetched_at: new Date(minute(0).getTime() + 30_000),
        chain: 'sui',
        origin: 'prices',
      },
      {
        coin_type: USDC,
        price_time: minute(0),
        price: '123456789012.12346',
        price_24h_ago: null,
        source: null,
        fetched_at: new Date(minute(0).getTime() + 30_000),
        chain: 'sui',
        origin: 'prices',
      },
    ]);
  });

  it('changes nothing when the same answer is written again, even fetched later', async () => {
    const data = [entry('0x2::sui::SUI', 3.21, minute(1)), entry(USDC, 0.9999, minute(1))];
    await write(data, minute(1));
    const before = [
      ...(await snapshotOf(database, 'token_price_points', { versions: true })),
      ...(await snapshotOf(database, 'token_catalog', { versions: true })),
    ];
    const again = await write(data, minute(2));
    expect(again.byTable).toEqual({});
    const after = [
      ...(await snapshotOf(database, 'token_price_points', { versions: true })),
      ...(await snapshotOf(database, 'token_catalog', { versions: true })),
    ];
    expect(after).toEqual(before);
  });

  it('stores one price per (coin type, price time), whatever the spelling of the coin type', async () => {
    await write([entry(`0x${'0'.repeat(63)}2::sui::SUI`, 3.3, minute(3))], minute(3));
    await write([entry('0x2::sui::SUI', 3.3, minute(3))], minute(4), 'batch-2');
    const [row] =
      await database.sql`select count(*)::int as n from token_prices where coin_type = ${SUI} and price_time = ${minute(3)}`;
    expect(row).toEqual({ n: 1 });
    await expect(database.sql`select count(*)::int as n from tokens`).resolves.toEqual([{ n: 2 }]);
  });

  it('merges a batch that is partly stored: new prices inserted, changed ones corrected, the rest untouched', async () => {
    const versions = await snapshotOf(database, 'token_price_points', { versions: true });
    const result = await write(
      [
        entry('0x2::sui::SUI', 3.21, minute(1)), // stored, unchanged
        entry(USDC, '0.99990', minute(1)), // stored, the same number spelled otherwise
        entry('0x2::sui::SUI', 3.3, minute(3), { source: 'cetus' }), // stored, source corrected
        entry('0x2::sui::SUI', 3.4, minute(5)), // new
      ],
      minute(6),
    );
    expect(result.byTable.token_prices).toBe(2);
    const after = await snapshotOf(database, 'token_price_points', { versions: true });
    expect(after.length).toBe(versions.length + 1);
    expect(after.filter((row) => versions.includes(row)).length).toBe(versions.length - 1);
    const [corrected] =
      await database.sql`select source from token_prices where coin_type = ${SUI} and price_time = ${minute(3)}`;
    expect(corrected).toEqual({ source: 'cetus' });
  });

  it('merges a large batch with a stored price inside it: the new ones inserted, the stored one untouched', async () => {
    const coin = '0xfa11::back::BACK';
    const at = (i: number) => new Date(Date.UTC(2026, 6, 1) + i * 60_000);
    await write([entry(coin, '7', at(300))], minute(41), 'fallback-1');
    // 601 prices, the first and the last new, the one in the middle stored already.
    const result = await write(
      Array.from({ length: 601 }, (_, i) => entry(coin, i === 300 ? '7' : '8', at(i))),
      minute(41),
      'fallback-2',
    );
    expect(result.byTable.token_prices).toBe(600);
    const rows =
      await database.sql`select price, count(*)::int as n from token_prices where coin_type like '%::back::BACK' group by price order by price`;
    expect(rows).toEqual([
      { price: '7', n: 1 },
      { price: '8', n: 600 },
    ]);
  });

  it('merges a batch of 12,000 prices with the same outcome as a job-sized one', async () => {
    const coins = Array.from({ length: 12 }, (_, i) => `0x${(i + 0x100).toString(16)}::bulk::B${i}`);
    const times = Array.from({ length: 1000 }, (_, i) => new Date(Date.UTC(2026, 7, 1) + i * 60_000));
    // The first price of each coin changed when `corrected`.
    const data = (corrected: boolean) =>
      coins.flatMap((coin) => times.map((time, t) => entry(coin, corrected && t === 0 ? '2.5' : '1.25', time)));
    const first = await write(data(false), minute(42), 'bulk');
    expect(first.byTable.token_prices).toBe(12_000);
    const before = await snapshotOf(database, 'token_price_points_p2026_08', { versions: true });
    const again = await write(data(false), minute(43), 'bulk');
    expect(again.byTable.token_prices).toBeUndefined();
    expect(await snapshotOf(database, 'token_price_points_p2026_08', { versions: true })).toEqual(before);
    const corrected = await write(
      [...data(true), entry(coins[0]!, '9', new Date(Date.UTC(2026, 7, 2)))],
      minute(44),
      'bulk',
    );
    expect(corrected.byTable.token_prices).toBe(13);
  });

  it('keeps the newest price as latest when an older answer arrives late', async () => {
    await write([entry('0x2::sui::SUI', 3.0, minute(-30))], minute(7), 'late', minute(-30));
    const [latest] = await database.sql`select price, price_time from latest_token_prices where coin_type = ${SUI}`;
    expect(latest).toEqual({ price: '3.4', price_time: minute(5) });
    const [token] = await database.sql`select first_seen_at, last_seen_at from tokens where coin_type = ${SUI}`;
    expect(token).toEqual({ first_seen_at: minute(-30), last_seen_at: minute(5) });
  });

  it('writes prices years in the past, creating their month partitions on demand', async () => {
    const old = [new Date('2021-03-15T00:00:00Z'), new Date('2021-04-02T00:00:00Z'), new Date('2019-12-31T23:59:59Z')];
    const result = await write(
      old.map((at) => entry(USDC, 1.0001, at)),
      minute(8),
      'backfill',
      minute(8),
    );
    expect(result.byTable.token_prices).toBe(3);
    const partitions = await database.sql`
      select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'token_price_points'::regclass order by 1`;
    expect(partitions.map((p) => p.relname)).toEqual(
      expect.arrayContaining([
        'token_price_points_p2019_12',
        'token_price_points_p2021_03',
        'token_price_points_p2021_04',
        'token_price_points_p2026_11',
      ]),
    );
  });

  it('lists the price times stored per coin type for backfill skipping', async () => {
    const stored = await storedPriceTimes(database, ['0x2::sui::SUI', USDC, '0x9::none::NONE'], minute(0), minute(5));
    expect([...stored.keys()].sort()).toEqual([`0x${'0'.repeat(63)}9::none::NONE`, SUI, USDC].sort());
    expect([...stored.get(SUI)!].sort()).toEqual([minute(0), minute(1), minute(3)].map((d) => d.getTime()));
    expect([...stored.get(USDC)!].sort()).toEqual([minute(0), minute(1)].map((d) => d.getTime()));
    expect(stored.get(SUI)!.has(minute(5).getTime())).toBe(false);
    expect(stored.get(`0x${'0'.repeat(63)}9::none::NONE`)!.size).toBe(0);
  });

  it('records a token answered without a price, and no price row for it', async () => {
    const coin = '0xbeef::nope::NOPE';
    const result = await write([{ ...entry(coin, 1, minute(9)), price: null, timestamp: 0 }], minute(9), 'nulls');
    expect(result.byTable).toEqual({ tokens: 1 });
    const [token] =
      await database.sql`select symbol, first_seen_at, last_seen_at from tokens where coin_type like '%::nope::NOPE'`;
    expect(token).toEqual({ symbol: 'NOPE', first_seen_at: minute(9), last_seen_at: minute(9) });
    await expect(
      database.sql`select count(*)::int as n from latest_token_prices where coin_type like '%::nope::NOPE'`,
    ).resolves.toEqual([{ n: 0 }]);
  });

  describe('written by transactions at once (the positions jobs of a slot carry the same prices)', () => {
    /** Harvested prices (a positions answer's), the rows the normalizer makes of `data`. */
    const harvested = (data: unknown[], fetchedAt: Date): PricePoints => {
      const rows = priceRows(data, fetchedAt);
      return { tokens: rows.tokens, prices: rows.prices.map((price) => ({ ...price, origin: 'positions' as const })) };
    };
    /** A transaction that writes `points`, then stays open until released. */
    const openWriter = (points: PricePoints) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let written!: (counts: Record<string, number>) => void;
      const wrote = new Promise<Record<string, number>>((resolve) => (written = resolve));
      const done = withTransaction(database, 'prices.write', async (tx) => {
        written(await writeTokenPrices(tx, points));
        await released;
      });
      return { wrote, release, done };
    };
    const waitingOnLocks = (n: number) =>
      waitFor(
        `${n} transactions waiting on a lock`,
        async () => {
          const [row] = await database.sql<{ n: number }[]>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`;
          return row!.n >= n;
        },
        5_000,
        10,
      );
    const within = <T>(promise: Promise<T>, ms: number) =>
      Promise.race([
        promise,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms)),
      ]);

    it('a transaction holds no lock on a price another one inserted and it leaves as it is', async () => {
      const data = [entry('0x2::sui::SUI', 3.5, minute(20)), entry(USDC, 1.0001, minute(20))];
      const first = openWriter(harvested(data, minute(20)));
      await first.wrote;
      // Two more write the same prices while the first is open: both wait for it to commit...
      const second = openWriter(harvested(data, minute(20)));
      const third = openWriter(harvested(data, minute(20)));
      await waitingOnLocks(2);
      first.release();
      await first.done;
      // ...and then neither waits for the other, though both are still open.
      await expect(within(Promise.all([second.wrote, third.wrote]), 5_000)).resolves.toEqual([{}, {}]);
      second.release();
      third.release();
      await Promise.all([second.done, third.done]);
      await expect(
        database.sql`select count(*)::int as n from token_prices where price_time = ${minute(20)}`,
      ).resolves.toEqual([{ n: 2 }]);
    });

    it('of two harvested prices written at once, the lower stays, whichever transaction inserted first', async () => {
      for (const [at, order] of [
        [minute(21), ['1.0003', '1.0002']],
        [minute(22), ['1.0002', '1.0003']],
      ] as const) {
        const first = openWriter(harvested([entry(USDC, order[0], at)], at));
        await first.wrote;
        const second = openWriter(harvested([entry(USDC, order[1], at)], at));
        await waitingOnLocks(1);
        first.release();
        await first.done;
        // The second corrects the price only where its own is the lower one.
        await expect(second.wrote).resolves.toEqual(order[1] === '1.0002' ? { token_prices: 1 } : {});
        second.release();
        await second.done;
        await expect(
          database.sql`select price, origin from token_prices where coin_type = ${USDC} and price_time = ${at}`,
        ).resolves.toEqual([{ price: '1.0002', origin: 'positions' }]);
      }
    });
  });
});
