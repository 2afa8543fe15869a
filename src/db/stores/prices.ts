import { normalizeCoinType } from '../../chain/coin-type.ts';
import type { PriceOrigin, PricePoints, PriceRow } from '../schema/rows.ts';
import type { Database, TransactionSql } from '../client.ts';
import { ensureMonthPartitions } from '../partitions.ts';
import { runSql } from '../query.ts';
import type { Tx } from '../transaction.ts';
import { catalogKey, recordTokens } from './token-catalog.ts';
import { writtenCounts } from './upsert.ts';

/** A price as stored: price_time, token_id, fetch_delay_s, source_id, price, price_24h_ago, origin. */
type PricePoint = [Date, number, number, number | null, string, string | null, number];

/** token_price_points.origin: the answer a price came from, as a code (the views name it). */
const ORIGIN_CODES: Record<PriceOrigin, number> = { prices: 1, positions: 2, nfts: 3 };

/**
 * Writes an answer's tokens, then its prices in one statement: writing it twice changes nothing. A
 * price request's price corrects a stored one of the same token and time; a harvested one never
 * replaces a requested price, and of two harvested ones the lower stays (answers that carry a token
 * at the same second may round its price apart: the kept one must not depend on which committed first).
 */
export async function writeTokenPrices(tx: Tx, points: PricePoints): Promise<Record<string, number>> {
  const { prices } = points;
  if (prices.length === 0) return writtenCounts({ tokens: (await recordTokens(tx, points.tokens)).written });
  // Independent of each other: sent together, one round trip (postgres.js pipelines them).
  const [tokens, sourceIds] = await Promise.all([
    recordTokens(tx, points.tokens),
    priceSourceIds(tx, prices),
    ensureMonthPartitions(
      tx,
      'token_price_points',
      prices.map((price) => price.priceTime),
    ),
  ]);
  const written = await mergePoints(tx.sql, pricePoints(prices, tokens.ids, sourceIds));
  return writtenCounts({ tokens: tokens.written, token_prices: written });
}

/** Ids of the price sources, inserting new names only when absent (no smallint id wasted), then read apart. */
async function priceSourceIds(tx: Tx, prices: PriceRow[]): Promise<Map<string, number>> {
  const wanted = [...new Set(prices.flatMap((price) => price.source ?? []))];
  if (wanted.length === 0) return new Map();
  await tx.sql`
    insert into price_sources (name)
    select n.name from unnest(${wanted}::text[]) as n(name)
    where not exists (select 1 from price_sources s where s.name = n.name)
    order by n.name
    on conflict (name) do nothing`;
  const rows = await tx.sql<{ id: number; name: string }[]>`
    select id, name from price_sources where name = any(${wanted}::text[])`;
  return new Map(rows.map(({ id, name }) => [name, id]));
}

/** The points as rows i(price_time, token_id, fetch_delay_s, source_id, price, price_24h_ago, origin, n). */
function incoming(sql: TransactionSql, points: PricePoint[]) {
  const column = (i: number) => points.map((point) => (point[i] instanceof Date ? point[i].toISOString() : point[i]));
  return sql`unnest(${column(0)}::timestamptz[], ${column(1)}::int[], ${column(2)}::int[], ${column(3)}::smallint[],
                    ${column(4)}::numeric[], ${column(5)}::numeric[], ${column(6)}::smallint[])
    with ordinality as i(price_time, token_id, fetch_delay_s, source_id, price, price_24h_ago, origin, n)`;
}

/**
 * One pass sorts the incoming rows: new (inserted here), stored alike (not even locked), or changed
 * (updated by updateChanged). A lateral LIMIT lookup (never flattened into a join) probes the key of
 * the row's one partition: as a join the planner may hash the whole table for a batch of 50.
 *
 * A row another transaction inserted meanwhile (every positions job of a slot carries the same
 * tokens at the same time) is left alone by the insert and judged by updateChanged. An ON CONFLICT DO
 * UPDATE would lock it even when nothing changes, until this job commits: the slot's jobs then queued
 * behind each other on those rows, one whole transaction after another.
 */
async function mergePoints(sql: TransactionSql, points: PricePoint[]): Promise<number> {
  const [row] = await sql<{ inserted: number; changed: number[] }[]>`
    with matched as materialized (
      select i.*, s.stored is not null as stored,
             ${replaces(sql, 'i', 's')} as differs
      from ${incoming(sql, points)}
      left join lateral (
        select true as stored, p.price, p.price_24h_ago, p.source_id, p.origin
        from token_price_points p where p.token_id = i.token_id and p.price_time = i.price_time
        limit 1
      ) s on true
    ),
    inserted as (
      insert into token_price_points (price_time, token_id, fetch_delay_s, source_id, price, price_24h_ago, origin)
      select m.price_time, m.token_id, m.fetch_delay_s, m.source_id, m.price, m.price_24h_ago, m.origin
      from matched m
      where not m.stored
      on conflict (token_id, price_time) do nothing
      returning token_id, price_time
    )
    select (select count(*) from inserted)::int as inserted,
           (select coalesce(array_agg(m.n::int), '{}') from matched m
            where case when m.stored then m.differs
                       else not exists (select 1 from inserted x where x.token_id = m.token_id and x.price_time = m.price_time)
                  end) as changed`;
  return (
    row!.inserted +
    (await updateChanged(
      sql,
      row!.changed.map((n) => points[n - 1]!),
    ))
  );
}

/**
 * Whether the incoming price (alias `incoming`) replaces the stored one (`stored`) of its token and
 * time: a price request's differing price always does; a harvested one only another harvested one
 * that sorts after it (lower price first, then origin, source and 24 h price), so that of several
 * answers carrying the token at that second the same one is kept in any commit order.
 */
function replaces(sql: TransactionSql, incoming: string, stored: string) {
  const [i, s] = [sql(incoming), sql(stored)];
  return sql`case
    when ${i}.origin = ${ORIGIN_CODES.prices}
      then (${s}.price, ${s}.price_24h_ago, ${s}.source_id, ${s}.origin)
           is distinct from (${i}.price, ${i}.price_24h_ago, ${i}.source_id, ${i}.origin)
    when ${s}.origin = ${ORIGIN_CODES.prices} then false
    else (${i}.price, ${i}.origin, coalesce(${i}.source_id, -1), coalesce(${i}.price_24h_ago, -1))
       < (${s}.price, ${s}.origin, coalesce(${s}.source_id, -1), coalesce(${s}.price_24h_ago, -1))
  end`;
}

/**
 * Corrects prices an answer revised, or that another transaction inserted meanwhile, where this answer's
 * price replaces it; locks only the rows it changes. Kept from hashing the whole table as in mergePoints.
 */
async function updateChanged(sql: TransactionSql, changed: PricePoint[]): Promise<number> {
  if (changed.length === 0) return 0;
  // Sent together: one round trip (it follows the merge in every slot's first jobs), run in order.
  const [, , result] = await Promise.all([
    sql`set local enable_hashjoin = off`,
    sql`set local enable_mergejoin = off`,
    sql`
      update token_price_points p
      set price = i.price, price_24h_ago = i.price_24h_ago, source_id = i.source_id, fetch_delay_s = i.fetch_delay_s,
          origin = i.origin
      from ${incoming(sql, changed)}
      where p.token_id = i.token_id and p.price_time = i.price_time
        -- Checked again on the row as it is now: another answer may have written it since it was read.
        and ${replaces(sql, 'i', 'p')}`,
    sql`reset enable_hashjoin`,
    sql`reset enable_mergejoin`,
  ]);
  return result.count;
}

/** The stored prices grouped by token: neighbours in the heap, their index entries fill pages. Linear. */
function pricePoints(prices: PriceRow[], tokenIds: Map<string, number>, sourceIds: Map<string, number>): PricePoint[] {
  const byToken = Map.groupBy(prices, (price) => tokenIds.get(catalogKey(price))!);
  return [...byToken].flatMap(([tokenId, rows]) =>
    rows.map((price): PricePoint => [
      price.priceTime,
      tokenId,
      Math.floor(price.fetchedAt.getTime() / 1000) - Math.floor(price.priceTime.getTime() / 1000),
      price.source === null ? null : sourceIds.get(price.source)!,
      price.price,
      price.price24hAgo,
      ORIGIN_CODES[price.origin],
    ]),
  );
}

/** The stored price times (epoch ms) in [from, to) by normalized coin type: what a backfill can skip. */
export async function storedPriceTimes(
  database: Database,
  coinTypes: string[],
  from: Date,
  to: Date,
): Promise<Map<string, Set<number>>> {
  const normal = [...new Set(coinTypes.map((coinType) => normalizeCoinType(coinType)))];
  const stored = new Map<string, Set<number>>(normal.map((coinType) => [coinType, new Set<number>()]));
  if (normal.length === 0) return stored;
  const rows = await runSql(database, 'prices.read')<{ coinType: string; priceTime: Date }[]>`
    select t.coin_type as "coinType", p.price_time as "priceTime"
    from token_catalog t
    join token_price_points p on p.token_id = t.id
    where t.coin_type = any(${normal}::text[]) and t.chain = 'sui'
      and p.price_time >= ${from} and p.price_time < ${to}`;
  for (const row of rows) stored.get(row.coinType)!.add(row.priceTime.getTime());
  return stored;
}

/**
 * The SUI coin types among `coinTypes` (normal form) with a price in [from, to) that a positions or NFT
 * answer brought (origin other than a price request): the price slot they stand for is filled already.
 */
export async function harvestedPriceCoinTypes(
  database: Database,
  coinTypes: string[],
  from: Date,
  to: Date,
): Promise<Set<string>> {
  if (coinTypes.length === 0) return new Set();
  const rows = await runSql(database, 'prices.read')<{ coinType: string }[]>`
    select t.coin_type as "coinType"
    from token_catalog t
    where t.coin_type = any(${coinTypes}::text[]) and t.chain = 'sui'
      and exists (select 1 from token_price_points p
                  where p.token_id = t.id and p.price_time >= ${from} and p.price_time < ${to}
                    and p.origin <> ${ORIGIN_CODES.prices})`;
  return new Set(rows.map((row) => row.coinType));
}
