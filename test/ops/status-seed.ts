import type { Database } from '../../src/db/client.ts';

/** The clock of the seeded world: prices cover the 24 hours before it. */
export const SEED_NOW = new Date('2026-11-21T12:00:00Z');

export const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';
export const CETUS = '0x06864a6f921804860930db6ddbe2e16acdf8504495ea7481637a1c8b9a8fe54b::cetus::CETUS';

export interface SeededToken {
  coinType: string;
  symbol: string;
  /** Prices inside the chart window, oldest first. */
  prices: { time: Date; price: string }[];
}

function wave(base: number, count: number, stepMinutes: number, phase: number) {
  return Array.from({ length: count }, (_, index) => ({
    time: new Date(SEED_NOW.getTime() - (count - 1 - index) * stepMinutes * 60_000),
    // Decimal strings as the upstream gives them; shortest round-trip, never toFixed.
    price: String(Number((base * (1 + 0.04 * Math.sin(index / 5 + phase) + 0.01 * Math.cos(index))).toPrecision(8))),
  }));
}

export const SEEDED_TOKENS: SeededToken[] = [
  { coinType: SUI, symbol: 'SUI', prices: wave(3.2, 48, 30, 0) },
  { coinType: CETUS, symbol: 'CETUS', prices: wave(0.0813, 30, 45, 2) },
];

/**
 * Rows the status page reads, written straight into the real tables (token_catalog and
 * token_price_points behind the tokens and token_prices views, with its monthly partition):
 * two watched tokens with prices over the last 24 hours plus one older price that must stay out of
 * the chart, watermarks for two datasets, failed and retrying runs, positions jobs superseded 15 and
 * 30 minutes and 2 hours before SEED_NOW, and a quarantined payload.
 */
export async function seedStatusRows(database: Database): Promise<void> {
  const { sql } = database;
  const minutesBefore = (minutes: number) => new Date(SEED_NOW.getTime() - minutes * 60_000);
  const old = new Date(SEED_NOW.getTime() - 30 * 3600_000);
  const [source] = await sql<{ id: number }[]>`insert into price_sources (name) values ('seed') returning id`;
  for (const token of SEEDED_TOKENS) {
    const points = token.coinType === SUI ? [{ time: old, price: '9.99' }, ...token.prices] : token.prices;
    const [row] = await sql<{ id: number }[]>`
      insert into token_catalog (coin_type, chain, symbol, decimals, first_seen_at)
      values (${token.coinType}, 'sui', ${token.symbol}, 9, ${old})
      returning id`;
    for (const month of new Set(points.map((point) => point.time.toISOString().slice(0, 7)))) {
      await sql`select chaintap_ensure_month_partition('token_price_points', ${`${month}-01`}::date)`;
    }
    await sql`
      insert into token_price_points ${sql(
        points.map((point) => ({
          price_time: point.time,
          token_id: row!.id,
          fetch_delay_s: 0,
          source_id: source!.id,
          price: point.price,
          price_24h_ago: token.prices[0]!.price,
          origin: 1,
        })),
      )}`;
  }
  await sql`insert into watched_tokens ${sql(SEEDED_TOKENS.map((token) => ({ coin_type: token.coinType })))}`;
  await sql`
    insert into dataset_watermarks (dataset, target, last_success_tick, last_success_at) values
      ('prices', 'batch-0', ${new Date(SEED_NOW.getTime() - 60_000)}, ${new Date(SEED_NOW.getTime() - 55_000)}),
      ('prices', 'batch-1', ${new Date(SEED_NOW.getTime() - 120_000)}, ${new Date(SEED_NOW.getTime() - 115_000)}),
      ('positions', '0xabc', ${new Date(SEED_NOW.getTime() - 900_000)}, ${new Date(SEED_NOW.getTime() - 890_000)})`;
  await sql`
    insert into ingestion_runs (job_id, dataset, target, tick, status, attempts, http_status, rows_written, error, started_at, finished_at) values
      ('positions-0xdead-1', 'positions', '0xdead', ${SEED_NOW}, 'failed', 5, 500, 0, 'upstream answered 500 <html>', ${SEED_NOW}, ${SEED_NOW}),
      ('nfts-0xbeef-1', 'nfts', '0xbeef', ${SEED_NOW}, 'retrying', 2, 429, 0, 'rate limited by the upstream', ${SEED_NOW}, null),
      ('prices-batch-0-1', 'prices', 'batch-0', ${SEED_NOW}, 'succeeded', 1, 200, 48, null, ${SEED_NOW}, ${SEED_NOW}),
      ('positions-0xabc-2', 'positions', '0xabc', ${minutesBefore(30)}, 'superseded', 0, null, 0, 'superseded', ${minutesBefore(15)}, ${minutesBefore(15)}),
      ('positions-0xabc-3', 'positions', '0xabc', ${minutesBefore(45)}, 'superseded', 0, null, 0, 'superseded', ${minutesBefore(30)}, ${minutesBefore(30)}),
      ('positions-0xabc-4', 'positions', '0xabc', ${minutesBefore(180)}, 'superseded', 0, null, 0, 'superseded', ${minutesBefore(120)}, ${minutesBefore(120)})`;
  await sql`
    insert into quarantined_payloads (received_at, dataset, endpoint, target, tick, http_status, reason, body) values
      (${SEED_NOW}, 'positions', '/v2/address/0xfeed/positions', '0xfeed', ${SEED_NOW}, 200, 'data[0].positionId: expected string', '{"data":[{}]}')`;
}
