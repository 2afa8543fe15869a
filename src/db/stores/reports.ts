import type { ChainToken } from '../../chain/token-id.ts';
import type { Database } from '../client.ts';
import { runSql } from '../query.ts';
import type { nftPnl, positionPnl, tokenPricesDailyOhlc, watchedAddresses } from '../schema/index.ts';

// The readers behind `chaintap report` and the report page, over the documented views. Amounts are
// Postgres `numeric` text, summed in SQL, never through a JavaScript number.

/** A step length as Postgres reads it: a count of milliseconds, so that a day is 24 hours, never a calendar day. */
const interval = (ms: number) => `${ms} milliseconds`;

/** How an address is watched: what it is refreshed for, and on which chains. */
export type AddressWatch = Omit<typeof watchedAddresses.$inferSelect, 'address' | 'addedAt'>;

/** How the address is watched (null: it is not), and whether a positions or NFT refresh of it is stored. */
export async function loadAddressPresence(
  database: Database,
  address: string,
): Promise<{ watched: AddressWatch | null; hasData: boolean }> {
  const [row] = await runSql(database, 'reports.read')<(AddressWatch & { isWatched: boolean; hasData: boolean })[]>`
      select w.address is not null as "isWatched", w.datasets, w.chain, w.protocols, w.nft_chain as "nftChain",
             w.include_pnl as "includePnl",
             exists (select 1 from position_refreshes where owner = ${address})
               or exists (select 1 from nft_refreshes where owner = ${address}) as "hasData"
      from (select 1) one
      left join watched_addresses w on w.address = ${address}`;
  const { isWatched, hasData, ...watch } = row!;
  return { watched: isWatched ? watch : null, hasData };
}

export interface PortfolioPoint {
  owner: string;
  time: Date;
  /** Σ net_value (assets − debt) of the top-level positions of the refresh in force; null: none yet. */
  positionsValue: string | null;
  /** Its two sides: Σ asset_value and Σ debt_value of the same positions. */
  positionsAssetValue: string | null;
  positionsDebtValue: string | null;
  /** Σ nft_pnl.value_usd of the NFT refresh in force (0: it held nothing; null: none yet, or nothing valued). */
  nftValueUsd: string | null;
  /** positions + NFTs, a missing part counting 0 (as latest_portfolio); null when neither was refreshed yet. */
  totalValue: string | null;
  /** total_value minus the first non-null total_value of the series. */
  pnl: string | null;
  positionsSnapshotAt: Date | null;
  nftSnapshotAt: Date | null;
}

/** Each owner's portfolio at `from` and every `intervalMs` up to `to`, from the refreshes then in force. */
export function loadPortfolioSeries(
  database: Database,
  { owners, from, to, intervalMs }: { owners: string[]; from: Date; to: Date; intervalMs: number },
): Promise<PortfolioPoint[]> {
  return runSql(database, 'reports.read')<PortfolioPoint[]>`
      with owners as (select unnest(${owners}::text[]) as owner),
      times as (
        select o.owner, t.time
        from owners o
        cross join generate_series(${from}::timestamptz, ${to}::timestamptz, ${interval(intervalMs)}::interval) as t(time)
      ),
      -- The refreshes in force at some time of the series, each valued once however long it is in
      -- force: a year at 10m over refreshes every 6 hours is 1,461 sums, not 52,561.
      positions_refreshes as (
        select r.owner, r.snapshot_at, r.net_value, r.asset_value, r.debt_value
        from owners o
        join position_refresh_values r on r.owner = o.owner and r.snapshot_at <= ${to}::timestamptz
          and r.snapshot_at >= coalesce((select max(f.snapshot_at) from position_refreshes f
                                         where f.owner = o.owner and f.snapshot_at <= ${from}::timestamptz), '-infinity')
      ),
      nft_refreshes_in_force as (
        select r.owner, r.snapshot_at, r.value_usd
        from owners o
        join nft_refresh_values r on r.owner = o.owner and r.snapshot_at <= ${to}::timestamptz
          and r.snapshot_at >= coalesce((select max(f.snapshot_at) from nft_refreshes f
                                         where f.owner = o.owner and f.snapshot_at <= ${from}::timestamptz), '-infinity')
      ),
      -- Times and refreshes in one ordered list: each time takes the refresh before it by counting
      -- the refreshes so far, in one pass instead of a lookup per time.
      events as (
        select owner, time, 1 as kind, null::timestamptz as positions_at, null::numeric as positions_value,
               null::numeric as positions_asset_value, null::numeric as positions_debt_value,
               null::timestamptz as nft_at, null::numeric as nft_value
        from times
        union all
        select owner, snapshot_at, 0, snapshot_at, net_value, asset_value, debt_value, null, null
        from positions_refreshes
        union all
        select owner, snapshot_at, 0, null, null, null, null, snapshot_at, value_usd from nft_refreshes_in_force
      ),
      counted as (
        select *, count(positions_at) over w as positions_seen, count(nft_at) over w as nft_seen
        from events
        window w as (partition by owner order by time, kind rows unbounded preceding)
      ),
      carried as (
        select owner, time, kind,
               max(positions_at) over (partition by owner, positions_seen) as positions_snapshot_at,
               max(positions_value) over (partition by owner, positions_seen) as positions_value,
               max(positions_asset_value) over (partition by owner, positions_seen) as positions_asset_value,
               max(positions_debt_value) over (partition by owner, positions_seen) as positions_debt_value,
               max(nft_at) over (partition by owner, nft_seen) as nft_snapshot_at,
               max(nft_value) over (partition by owner, nft_seen) as nft_value_usd
        from counted
      ),
      totals as (
        select *,
               case when positions_snapshot_at is null and nft_snapshot_at is null then null
                    else coalesce(positions_value, 0) + coalesce(nft_value_usd, 0) end as total_value
        from carried where kind = 1
      )
      select owner, time,
             positions_value::text as "positionsValue",
             positions_asset_value::text as "positionsAssetValue",
             positions_debt_value::text as "positionsDebtValue",
             nft_value_usd::text as "nftValueUsd",
             total_value::text as "totalValue",
             -- The first row with a value comes first, so the default frame (up to this row) holds it.
             (total_value - first_value(total_value) over (
               partition by owner order by total_value is null, time))::text as pnl,
             positions_snapshot_at as "positionsSnapshotAt",
             nft_snapshot_at as "nftSnapshotAt"
      from totals
      order by owner, time`;
}

export type PortfolioPositionRow = Omit<typeof positionPnl.$inferSelect, 'owner' | 'upstreamPositionId'> & {
  protocolName: string | null;
};

/** How many positions and NFT collections the owner's latest refreshes at or before `at` hold. */
export async function countPortfolioRows(
  database: Database,
  owner: string,
  at: Date,
): Promise<{ positions: number; nfts: number }> {
  const [row] = await runSql(database, 'reports.read')<{ positions: number; nfts: number }[]>`
      select (select count(*) from position_pnl p where p.owner = ${owner}
                and p.snapshot_at = (${latestRefresh(database, 'position_refreshes', owner, at)}))::int as positions,
             (select count(*) from nft_pnl n where n.owner = ${owner}
                and n.snapshot_at = (${latestRefresh(database, 'nft_refreshes', owner, at)}))::int as nfts`;
  return row!;
}

/** The time of the owner's latest refresh at or before `at`, as a subquery. */
function latestRefresh(database: Database, table: 'position_refreshes' | 'nft_refreshes', owner: string, at: Date) {
  return database.sql`select max(r.snapshot_at) from ${database.sql(table)} r where r.owner = ${owner} and r.snapshot_at <= ${at}`;
}

/** The positions of the owner's latest positions refresh at or before `at` (position_pnl), without an order. */
function refreshPositions(database: Database, owner: string, at: Date) {
  return database.sql`
      select p.snapshot_at as "snapshotAt", p.position_id as "positionId", p.parent_position_id as "parentPositionId",
             p.protocol_id as "protocolId", pr.name as "protocolName", p.type, p.chain,
             p.input_value::text as "inputValue", p.current_value::text as "currentValue",
             p.current_yield_value::text as "currentYieldValue", p.yield_collected_value::text as "yieldCollectedValue",
             p.pnl::text as pnl, p.asset_value::text as "assetValue", p.debt_value::text as "debtValue",
             p.net_value::text as "netValue", p.health_factor::text as "healthFactor"
      from position_pnl p
      left join protocols pr on pr.protocol_id = p.protocol_id
      where p.owner = ${owner} and p.snapshot_at = (${latestRefresh(database, 'position_refreshes', owner, at)})`;
}

/** Every position of that refresh, nested ones after their parent, in batches through a cursor. */
export async function* streamPortfolioPositions(
  database: Database,
  input: { owner: string; at: Date; batchRows?: number },
): AsyncGenerator<PortfolioPositionRow[]> {
  const query = database.sql<PortfolioPositionRow[]>`
      ${refreshPositions(database, input.owner, input.at)}
      order by coalesce(p.parent_position_id, p.position_id), p.parent_position_id nulls first, p.position_id`;
  for await (const rows of query.cursor(input.batchRows ?? 1000)) yield rows;
}

/** The `limit` positions of that refresh largest by net value (either sign), largest first. */
export function loadLargestPositions(
  database: Database,
  input: { owner: string; at: Date; limit: number },
): Promise<PortfolioPositionRow[]> {
  return runSql(database, 'reports.read')<PortfolioPositionRow[]>`
      ${refreshPositions(database, input.owner, input.at)}
      order by abs(p.net_value) desc nulls last, p.position_id
      limit ${input.limit}`;
}

export type PortfolioNftRow = Omit<
  typeof nftPnl.$inferSelect,
  'owner' | 'floorPrice' | 'marketPrice' | 'marketPriceUsd' | 'nativePriceSource'
>;

/** The collections of the owner's latest NFT refresh at or before `at` (nft_pnl), most valuable first. */
function refreshNfts(database: Database, owner: string, at: Date) {
  return database.sql`
      select n.snapshot_at as "snapshotAt", n.collection_id as "collectionId", n.collection_name as "collectionName",
             n.chain, n.token_count as "tokenCount", n.floor_price_native::text as "floorPriceNative",
             n.native_token_symbol as "nativeTokenSymbol", n.native_price_usd::text as "nativePriceUsd",
             n.value_usd::text as "valueUsd", n.realized_pnl::text as "realizedPnl",
             n.unrealized_pnl::text as "unrealizedPnl"
      from nft_pnl n
      where n.owner = ${owner} and n.snapshot_at = (${latestRefresh(database, 'nft_refreshes', owner, at)})
      order by n.value_usd desc nulls last, n.collection_id`;
}

/** Every collection of that refresh, most valuable first, in batches through a cursor. */
export async function* streamPortfolioNfts(
  database: Database,
  input: { owner: string; at: Date; batchRows?: number },
): AsyncGenerator<PortfolioNftRow[]> {
  const query = database.sql<PortfolioNftRow[]>`${refreshNfts(database, input.owner, input.at)}`;
  for await (const rows of query.cursor(input.batchRows ?? 1000)) yield rows;
}

/** The `limit` most valuable collections of that refresh. */
export function loadLargestNfts(
  database: Database,
  input: { owner: string; at: Date; limit: number },
): Promise<PortfolioNftRow[]> {
  return runSql(database, 'reports.read')<PortfolioNftRow[]>`
      ${refreshNfts(database, input.owner, input.at)}
      limit ${input.limit}`;
}

/** A watched address's options and its latest_portfolio values, named as a series point's. */
export interface WatchedAddressValue
  extends
    Pick<AddressWatch, 'datasets' | 'chain' | 'nftChain'>,
    Omit<PortfolioPoint, 'owner' | 'time' | 'nftValueUsd' | 'pnl'> {
  address: string;
  nftValue: string | null;
}

/** Every watched address with its options and its latest_portfolio row (values null when never refreshed). */
export function loadWatchedAddressValues(database: Database): Promise<WatchedAddressValue[]> {
  return runSql(database, 'reports.read')<WatchedAddressValue[]>`
      select w.address, w.datasets, w.chain, w.nft_chain as "nftChain",
             l.positions_value::text as "positionsValue", l.positions_asset_value::text as "positionsAssetValue",
             l.positions_debt_value::text as "positionsDebtValue", l.nft_value::text as "nftValue",
             l.total_value::text as "totalValue", l.positions_snapshot_at as "positionsSnapshotAt",
             l.nft_snapshot_at as "nftSnapshotAt"
      from watched_addresses w
      left join latest_portfolio l on l.owner = w.address
      order by w.address`;
}

export interface PriceTokenSpan {
  coinType: string;
  chain: string;
  symbol: string | null;
  /** Oldest and newest stored price of the token; null when it has none. */
  firstPriceTime: Date | null;
  lastPriceTime: Date | null;
  /** Whether a price is stored in [from, to). */
  pricedInRange: boolean;
}

/**
 * For each token of a chain (in the order given): its symbol, its stored price span and whether
 * [from, to) holds a price.
 */
export function loadPriceTokenSpans(
  database: Database,
  { tokens, from, to }: { tokens: ChainToken[]; from: Date; to: Date },
): Promise<PriceTokenSpan[]> {
  return runSql(database, 'reports.read')<PriceTokenSpan[]>`
      select c.coin_type as "coinType", c.chain, t.symbol,
             (select p.price_time from token_prices p where p.coin_type = c.coin_type and p.chain = c.chain
              order by p.price_time limit 1) as "firstPriceTime",
             (select p.price_time from token_prices p where p.coin_type = c.coin_type and p.chain = c.chain
              order by p.price_time desc limit 1) as "lastPriceTime",
             exists (select 1 from token_prices p where p.coin_type = c.coin_type and p.chain = c.chain
                     and p.price_time >= ${from} and p.price_time < ${to}) as "pricedInRange"
      from unnest(${tokens.map((token) => token.token)}::text[], ${tokens.map((token) => token.chain)}::text[])
           with ordinality as c(coin_type, chain, n)
      left join tokens t on t.coin_type = c.coin_type and t.chain = c.chain
      order by c.n`;
}

export type PriceBucket = Omit<typeof tokenPricesDailyOhlc.$inferSelect, 'coinType' | 'day' | 'chain'> & {
  /** Start of the bucket: `from` + k × interval; the bucket holds the prices of [time, time + interval). */
  time: Date;
};

/** One token's OHLC buckets of `intervalMs` in [from, to), through a cursor; buckets without a price are absent. */
export async function* streamPriceBuckets(
  database: Database,
  input: { coinType: string; chain: string; from: Date; to: Date; intervalMs: number; batchRows?: number },
): AsyncGenerator<PriceBucket[]> {
  const { coinType, chain, from, to, intervalMs } = input;
  const query = database.sql<PriceBucket[]>`
    select date_bin(${interval(intervalMs)}::interval, p.price_time, ${from}::timestamptz) as time,
           ((array_agg(p.price order by p.price_time))[1])::text as open,
           max(p.price)::text as high,
           min(p.price)::text as low,
           ((array_agg(p.price order by p.price_time desc))[1])::text as close,
           count(*)::int as samples
    from token_prices p
    where p.coin_type = ${coinType} and p.chain = ${chain} and p.price_time >= ${from} and p.price_time < ${to}
    group by 1
    order by 1`;
  for await (const rows of query.cursor(input.batchRows ?? 1000)) yield rows;
}
