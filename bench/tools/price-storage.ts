/**
 * Measures the price storage (not a test: speed and size belong in benchmarks):
 *   node bench/tools/price-storage.ts [admin-url] [size|speed|month]
 * 1. bytes on disk per stored price (heap + indexes of token_price_points) for 1,000,000 prices
 *    written through writeTokenPrices, for several write patterns;
 * 2. the price write path against a plain COPY of the same rows into token_price_points, for new
 *    rows and for rows that are all stored already.
 * Each case runs in a throwaway database.
 */
import { randomBytes } from 'node:crypto';
import pLimit from 'p-limit';
import postgres from 'postgres';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { copyInto, copyText, type CopyValue } from '../support/copy.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { compactPriceIndexes, ensurePartitions, withTransaction, writeTokenPrices } from '../../src/db/index.ts';
import type { NormalizedTokenPrices, PriceRow } from '../../src/db/schema/rows.ts';

const ADMIN_URL = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const START = Date.UTC(2026, 9, 1);
const SOURCES = ['pyth', 'cetus', 'birdeye', 'simulated'];
const SIGNIFICANT_DIGITS = [12, 12, 10, 9, 6];

async function withDatabase<T>(work: (database: Database) => Promise<T>): Promise<T> {
  const name = `chaintap_measure_${randomBytes(4).toString('hex')}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  await runMigrations(url.toString());
  const database = createDatabase(url.toString(), { max: 4 });
  try {
    return await work(database);
  } finally {
    await database.close();
    await admin.unsafe(`drop database "${name}" with (force)`);
    await admin.end();
  }
}

function coinType(index: number): string {
  return `0x${(index + 0x1000).toString(16).padStart(64, '0')}::coin${index}::COIN${index}`;
}

/** Simulator-like prices: a walk around a per-token base, rounded to the token's significant digits. */
function price(token: number, minute: number): string {
  const base = 10 ** ((token % 7) - 3) * (1 + (token % 13) / 10);
  const value = base * (1 + 0.05 * Math.sin(minute / 97 + token) + 0.01 * Math.cos(minute / 7 + token * 3));
  return String(Number(value.toPrecision(SIGNIFICANT_DIGITS[token % SIGNIFICANT_DIGITS.length]!)));
}

function priceRows(tokens: number[], minute: number): PriceRow[] {
  const priceTime = new Date(START + minute * 60_000);
  return tokens.map((token) => ({
    coinType: coinType(token),
    priceTime,
    price: price(token, minute),
    price24hAgo: price(token, minute - 1440),
    source: SOURCES[token % SOURCES.length]!,
    fetchedAt: new Date(priceTime.getTime() + 2_500),
    chain: 'sui',
    origin: 'prices' as const,
  }));
}

function normalized(prices: PriceRow[]): NormalizedTokenPrices {
  const tokens = new Map(
    prices.map((p) => [
      p.coinType,
      {
        coinType: p.coinType,
        chain: 'sui',
        symbol: p.coinType.split('::')[2]!,
        decimals: 9,
        firstSeenAt: p.priceTime,
        lastSeenAt: p.priceTime,
        lastPriceTime: p.priceTime,
      },
    ]),
  );
  return { tokens: [...tokens.values()], prices, missing: [] };
}

async function storedBytes(database: Database): Promise<{ rows: number; heap: number; indexes: number }> {
  const [size] = await database.sql<{ rows: string; heap: string; indexes: string }[]>`
    select (select count(*) from token_price_points) as rows,
           sum(pg_table_size(i.inhrelid)) as heap,
           sum(pg_indexes_size(i.inhrelid)) as indexes
    from pg_inherits i where i.inhparent = 'token_price_points'::regclass`;
  return { rows: Number(size!.rows), heap: Number(size!.heap), indexes: Number(size!.indexes) };
}

/**
 * Bytes per price after `total` prices written as live ticks are: `tokens` tokens x consecutive
 * minutes, one transaction per 50-token price job, `writers` jobs at a time (so that jobs of one
 * minute commit in any order), then VACUUM.
 */
async function measureSize(tokenCount: number, total: number, writers: number): Promise<void> {
  await withDatabase(async (database) => {
    const minutes = total / tokenCount;
    const limit = pLimit(writers);
    const started = performance.now();
    for (let minute = 0; minute < minutes; minute++) {
      await Promise.all(
        Array.from({ length: Math.ceil(tokenCount / 50) }, (_, batch) =>
          limit(() => {
            const tokens = Array.from({ length: Math.min(50, tokenCount - batch * 50) }, (_, i) => batch * 50 + i);
            return withTransaction(database, 'prices.write', (tx) =>
              writeTokenPrices(tx, normalized(priceRows(tokens, minute))),
            );
          }),
        ),
      );
    }
    const seconds = (performance.now() - started) / 1000;
    await database.sql`vacuum analyze token_price_points`;
    const report = ({ rows, heap, indexes }: { rows: number; heap: number; indexes: number }) =>
      `heap ${(heap / rows).toFixed(1)} B + indexes ${(indexes / rows).toFixed(1)} B = ${((heap + indexes) / rows).toFixed(1)} B per price`;
    const written = await storedBytes(database);
    await compactPriceIndexes(database, new Date(START));
    console.log(
      `size  ${String(tokenCount).padStart(5)} tokens x ${String(minutes).padStart(6)} minutes, ${writers} writers: ${written.rows} rows, ` +
        `${report(written)}; after compactPriceIndexes ${report(await storedBytes(database))} ` +
        `(${Math.round(written.rows / seconds)} prices/s through writeTokenPrices)`,
    );
  });
}

/**
 * Plain COPY vs writeTokenPrices, interleaved write by write (so that the load of a shared machine
 * hits both alike): each write of `perWrite` prices (`tokens` tokens x consecutive minutes) goes as
 * a plain COPY of its stored form into an identical table, then through writeTokenPrices; then
 * every write again through writeTokenPrices (all stored), interleaved with a plain COPY into a
 * second identical table. One transaction per write everywhere.
 */
async function measureSpeed(label: string, total: number, perWrite: number, tokenCount: number): Promise<void> {
  await withDatabase(async (database) => {
    const minutesPerWrite = Math.max(1, perWrite / tokenCount);
    const tokens = Array.from({ length: tokenCount }, (_, i) => i);
    const writes: PriceRow[][] = [];
    for (let minute = 0; writes.length * perWrite < total; minute += minutesPerWrite) {
      writes.push(Array.from({ length: minutesPerWrite }, (_, m) => priceRows(tokens, minute + m)).flat());
    }
    await ensurePartitions(database, { from: new Date(START), to: new Date(START + 400 * 86_400_000) });
    for (const copy of ['token_price_points_copy_a', 'token_price_points_copy_b']) {
      await database.sql.unsafe(
        `create table ${copy} (like token_price_points including all) partition by range (price_time)`,
      );
      for (const month of ['2026-10-01', '2026-11-01', '2026-12-01'])
        await database.sql`select chaintap_ensure_month_partition(${copy}, ${month}::date)`;
    }
    // Token and source ids as the write path assigns them, for the plain COPY of the same rows.
    await withTransaction(database, 'prices.write', (tx) => writeTokenPrices(tx, normalized(writes[0]!)));
    await database.sql`truncate token_price_points`;
    const ids = new Map(
      (await database.sql<{ coinType: string; id: number }[]>`select coin_type as "coinType", id from tokens`).map(
        (r) => [r.coinType, r.id],
      ),
    );
    const sources = new Map(
      (await database.sql<{ name: string; id: number }[]>`select name, id from price_sources`).map((r) => [
        r.name,
        r.id,
      ]),
    );
    const storedForms = writes.map((prices) =>
      prices.map((p): CopyValue[] => [
        p.priceTime,
        ids.get(p.coinType)!,
        Math.floor(p.fetchedAt.getTime() / 1000) - Math.floor(p.priceTime.getTime() / 1000),
        sources.get(p.source!)!,
        p.price,
        p.price24hAgo,
        1,
      ]),
    );
    const inputs = writes.map(normalized);
    const columns = ['price_time', 'token_id', 'fetch_delay_s', 'source_id', 'price', 'price_24h_ago', 'origin'];
    const time = async (work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    const totals = { copyA: 0, fresh: 0, copyB: 0, stored: 0 };
    for (let i = 0; i < writes.length; i++) {
      totals.copyA += await time(() =>
        withTransaction(database, 'prices.write', (tx) =>
          copyInto(tx.sql, 'token_price_points_copy_a', columns, copyText(storedForms[i]!)),
        ),
      );
      totals.fresh += await time(() =>
        withTransaction(database, 'prices.write', (tx) => writeTokenPrices(tx, inputs[i]!)),
      );
    }
    for (let i = 0; i < writes.length; i++) {
      totals.copyB += await time(() =>
        withTransaction(database, 'prices.write', (tx) =>
          copyInto(tx.sql, 'token_price_points_copy_b', columns, copyText(storedForms[i]!)),
        ),
      );
      totals.stored += await time(() =>
        withTransaction(database, 'prices.write', (tx) => writeTokenPrices(tx, inputs[i]!)),
      );
    }
    const rows = writes.length * perWrite;
    const rate = (ms: number) => `${Math.round(rows / (ms / 1000))} prices/s`;
    console.log(
      `speed ${label}: ${rows} prices in writes of ${perWrite}: plain COPY ${rate(totals.copyA)}; write path new ${rate(totals.fresh)} ` +
        `(${(totals.copyA / totals.fresh).toFixed(2)} of COPY); plain COPY again ${rate(totals.copyB)}, write path all stored ${rate(totals.stored)} ` +
        `(${(totals.copyB / totals.stored).toFixed(2)} of COPY)`,
    );
  });
}

const only = process.argv[3];
if (!only || only === 'size') {
  // The first minutes of a month (each token has less than a page of the index to itself), a day, a month.
  await measureSize(1000, 200_000, 4);
  await measureSize(1000, 1_000_000, 4);
  await measureSize(50, 1_000_000, 4);
  await measureSize(25, 1_080_000, 4);
}
if (only === 'month') {
  // The default cadence for a year, per token: one price job of 50 tokens a minute for a whole month
  // (a monthly partition; a year is twelve of them), as docs/operations.md "Retention" quotes.
  await measureSize(50, 50 * 30 * 1440, 1);
}
if (!only || only === 'speed') {
  for (let round = 1; round <= 3; round++) {
    await measureSpeed(`bulk, round ${round}`, 1_000_000, 10_000, 1000);
    await measureSpeed(`job-size, round ${round}`, 100_000, 50, 50);
  }
}
