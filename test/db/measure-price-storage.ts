/**
 * Measures the price storage (not a test: speed and size belong in benchmarks):
 *   npx tsx test/db/measure-price-storage.ts [admin-url]
 * 1. bytes on disk per stored price (heap + indexes of token_price_points) for 1,000,000 prices
 *    written through writeTokenPrices, for several write patterns;
 * 2. the price write path against a plain COPY of the same rows into token_price_points, for new
 *    rows and for rows that are all stored already.
 * Each case runs in a throwaway database.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { createDatabase, type Database } from '../../src/db/client.js';
import { copyInto, copyText, type CopyValue } from '../../src/db/copy.js';
import { runMigrations } from '../../src/db/migrate.js';
import { ensurePartitions, withTransaction, writeTokenPrices } from '../../src/db/index.js';
import type { NormalizedTokenPrices, PriceRow } from '../../src/normalize/rows.js';

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
  }));
}

function normalized(prices: PriceRow[]): NormalizedTokenPrices {
  const tokens = new Map(prices.map((p) => [p.coinType, {
    coinType: p.coinType, symbol: p.coinType.split('::')[2]!, decimals: 9, firstSeenAt: p.priceTime, lastSeenAt: p.priceTime, lastPriceTime: p.priceTime,
  }]));
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

/** 1,000,000 prices written as `tokens` tokens x (1e6 / tokens) minutes, `perCall` tokens per write. */
async function measureSize(tokenCount: number, perCall: number, minutesPerCall = 1): Promise<void> {
  await withDatabase(async (database) => {
    const minutes = 1_000_000 / tokenCount;
    const tokens = Array.from({ length: tokenCount }, (_, i) => i);
    const started = performance.now();
    for (let minute = 0; minute < minutes; minute += minutesPerCall) {
      for (let first = 0; first < tokenCount; first += perCall) {
        const batch = tokens.slice(first, first + perCall);
        const prices = Array.from({ length: minutesPerCall }, (_, m) => priceRows(batch, minute + m)).flat();
        await withTransaction(database, (tx) => writeTokenPrices(tx, normalized(prices)));
      }
    }
    const seconds = (performance.now() - started) / 1000;
    await database.sql`vacuum analyze token_price_points`;
    const { rows, heap, indexes } = await storedBytes(database);
    console.log(
      `size  ${String(tokenCount).padStart(5)} tokens x ${String(minutes).padStart(6)} minutes, ${String(perCall * minutesPerCall).padStart(5)} prices per write: ` +
      `${rows} rows, heap ${(heap / rows).toFixed(1)} B + indexes ${(indexes / rows).toFixed(1)} B = ${((heap + indexes) / rows).toFixed(1)} B per price ` +
      `(${Math.round(rows / seconds)} prices/s through writeTokenPrices)`,
    );
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Plain COPY vs writeTokenPrices for `perCall`-price writes of `total` prices, new and all stored. */
async function measureSpeed(total: number, perCall: number, rounds = 3): Promise<void> {
  await withDatabase(async (database) => {
    const tokenCount = Math.min(perCall, 1000);
    const tokens = Array.from({ length: tokenCount }, (_, i) => i);
    const calls: PriceRow[][] = [];
    for (let minute = 0; calls.length * perCall < total; minute += perCall / tokenCount) {
      calls.push(Array.from({ length: perCall / tokenCount }, (_, m) => priceRows(tokens, minute + m)).flat());
    }
    await ensurePartitions(database, { from: new Date(START), to: new Date(START + 400 * 86_400_000) });
    // Token and source ids as the write path assigns them, for the plain COPY of the same rows.
    await withTransaction(database, (tx) => writeTokenPrices(tx, normalized(calls[0]!)));
    const ids = new Map((await database.sql<{ coinType: string; id: number }[]>`select coin_type as "coinType", id from tokens`).map((r) => [r.coinType, r.id]));
    const sources = new Map((await database.sql<{ name: string; id: number }[]>`select name, id from price_sources`).map((r) => [r.name, r.id]));
    const reset = () => database.sql`truncate token_price_points`;

    const plainCopy = async () => {
      const started = performance.now();
      for (const prices of calls) {
        await withTransaction(database, async (tx) => {
          const rows = prices.map((p): CopyValue[] => [
            p.priceTime, ids.get(p.coinType)!, Math.floor(p.fetchedAt.getTime() / 1000) - Math.floor(p.priceTime.getTime() / 1000),
            sources.get(p.source!)!, p.price, p.price24hAgo,
          ]);
          await copyInto(tx.sql, 'token_price_points', ['price_time', 'token_id', 'fetch_delay_s', 'source_id', 'price', 'price_24h_ago'], copyText(rows));
        });
      }
      return performance.now() - started;
    };
    const writePath = async () => {
      const started = performance.now();
      for (const prices of calls) await withTransaction(database, (tx) => writeTokenPrices(tx, normalized(prices)));
      return performance.now() - started;
    };

    const copyTimes: number[] = [];
    const newTimes: number[] = [];
    const storedTimes: number[] = [];
    for (let round = 0; round < rounds; round++) {
      await reset();
      copyTimes.push(await plainCopy());
      await reset();
      newTimes.push(await writePath());
      storedTimes.push(await writePath());
    }
    const copy = median(copyTimes);
    const rate = (ms: number) => `${Math.round((calls.length * perCall) / (ms / 1000))} prices/s`;
    console.log(
      `speed ${calls.length * perCall} prices, ${perCall} per write: plain COPY ${rate(copy)}; ` +
      `write path, new ${rate(median(newTimes))} (${(copy / median(newTimes)).toFixed(2)} of COPY), ` +
      `all stored ${rate(median(storedTimes))} (${(copy / median(storedTimes)).toFixed(2)} of COPY)`,
    );
  });
}

const only = process.argv[3];
if (!only || only === 'size') {
  await measureSize(1000, 50);
  await measureSize(50, 50);
  await measureSize(200, 50);
  await measureSize(1000, 1000, 10);
}
if (!only || only === 'speed') {
  await measureSpeed(500_000, 100_000);
  await measureSpeed(200_000, 10_000);
  await measureSpeed(50_000, 50);
}
