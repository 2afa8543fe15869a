import { date, integer, jsonb, numeric, pgView, text, timestamp } from 'drizzle-orm/pg-core';
import { nftHoldingColumns, nftRefreshColumns } from './nfts.ts';
import { positionAmountKind, positionRefreshColumns, snapshotValueColumns } from './positions.ts';
import type { PriceOrigin } from './rows.ts';

// The reporting views (docs/schema.md), made by hand-written SQL migrations: drizzle-kit leaves `.existing()` ones alone.
const at = (name: string) => timestamp(name, { withTimezone: true });
const priceColumns = () => ({
  coinType: text('coin_type').notNull(),
  priceTime: at('price_time').notNull(),
  price: numeric('price').notNull(),
  price24hAgo: numeric('price_24h_ago'),
  source: text('source'),
  fetchedAt: at('fetched_at').notNull(),
  chain: text('chain').notNull(),
  /** The answer that carried the price: `prices` (a price request), `positions` or `nfts`. */
  origin: text('origin').$type<PriceOrigin>().notNull(),
});
/** The snapshot of a position a row of the position views belongs to. */
const positionSnapshotKey = () => ({
  owner: text('owner').notNull(),
  positionId: text('position_id').notNull(),
  snapshotAt: at('snapshot_at').notNull(),
});

/** The data contract's tokens: token_catalog plus last_seen_at from the newest stored price. */
export const tokens = pgView('tokens', {
  coinType: text('coin_type').notNull(),
  id: integer('id').notNull(),
  symbol: text('symbol'),
  decimals: integer('decimals'),
  firstSeenAt: at('first_seen_at').notNull(),
  lastSeenAt: at('last_seen_at'),
  chain: text('chain').notNull(),
}).existing();

/** One row per stored price (over token_price_points): the data contract's token_prices. */
export const tokenPrices = pgView('token_prices', priceColumns()).existing();

/** One row per position per tick (over position_snapshot_points): the data contract's position_snapshots. */
export const positionSnapshots = pgView('position_snapshots', {
  ...positionSnapshotKey(),
  fee: numeric('fee'),
  ...snapshotValueColumns(),
  extra: jsonb('extra').$type<Record<string, unknown>>(),
}).existing();

/** The amount entries of every position snapshot, one row each. */
export const positionAmounts = pgView('position_amounts', {
  ...positionSnapshotKey(),
  kind: positionAmountKind('kind').notNull(),
  idx: integer('idx').notNull(),
  token: text('token'),
  tokenSymbol: text('token_symbol'),
  amount: numeric('amount'),
  value: numeric('value'),
  tokenInfo: jsonb('token_info').$type<Record<string, unknown>>(),
  extra: jsonb('extra').$type<Record<string, unknown>>(),
}).existing();

/** The farming entries of every position snapshot, one row each. */
export const positionFarming = pgView('position_farming', {
  ...positionSnapshotKey(),
  idx: integer('idx').notNull(),
  baseApr: numeric('base_apr'),
  rewardsApr: numeric('rewards_apr'),
  totalApr: numeric('total_apr'),
  totalApy: numeric('total_apy'),
  rewards: jsonb('rewards'),
  extra: jsonb('extra').$type<Record<string, unknown>>(),
}).existing();

export const latestTokenPrices = pgView('latest_token_prices', {
  ...priceColumns(),
  symbol: text('symbol'),
}).existing();

export const tokenPricesDailyOhlc = pgView('token_prices_daily_ohlc', {
  coinType: text('coin_type').notNull(),
  day: date('day', { mode: 'date' }).notNull(),
  open: numeric('open').notNull(),
  high: numeric('high').notNull(),
  low: numeric('low').notNull(),
  close: numeric('close').notNull(),
  samples: integer('samples').notNull(),
  chain: text('chain').notNull(),
}).existing();

export const latestPortfolio = pgView('latest_portfolio', {
  owner: text('owner').notNull(),
  /** USD: net worth (assets − debt) of the top-level positions of the latest positions refresh. */
  positionsValue: numeric('positions_value'),
  /** USD: Σ nft_pnl.value_usd of the latest NFT refresh; null when none of its holdings has a known value. */
  nftValue: numeric('nft_value'),
  totalValue: numeric('total_value').notNull(),
  positionsSnapshotAt: at('positions_snapshot_at'),
  nftSnapshotAt: at('nft_snapshot_at'),
  /** Holdings of the latest NFT refresh whose value is unknown, left out of nft_value. */
  nftUnvaluedCollections: integer('nft_unvalued_collections'),
  positionsAssetValue: numeric('positions_asset_value'),
  positionsDebtValue: numeric('positions_debt_value'),
  /** Top-level positions of the latest positions refresh whose net value is unknown, left out of positions_value. */
  positionsUnvalued: integer('positions_unvalued'),
}).existing();

/** One row per positions refresh: what the address's top-level positions were worth then. */
export const positionRefreshValues = pgView('position_refresh_values', {
  ...positionRefreshColumns(),
  assetValue: numeric('asset_value').notNull(),
  debtValue: numeric('debt_value').notNull(),
  netValue: numeric('net_value').notNull(),
  unvaluedPositions: integer('unvalued_positions').notNull(),
}).existing();

/** One row per NFT refresh: the USD value of its holdings (null when none has a known value). */
export const nftRefreshValues = pgView('nft_refresh_values', {
  ...nftRefreshColumns(),
  valueUsd: numeric('value_usd'),
  unvaluedCollections: integer('unvalued_collections').notNull(),
}).existing();

export const positionPnl = pgView('position_pnl', {
  ...positionSnapshotKey(),
  protocolId: text('protocol_id'),
  type: text('type').notNull(),
  chain: text('chain').notNull(),
  ...snapshotValueColumns(),
  upstreamPositionId: text('upstream_position_id').notNull(),
  /** Set for a position nested in another's amount list; latest_portfolio leaves such positions out. */
  parentPositionId: text('parent_position_id'),
}).existing();

/** Each NFT holding at each snapshot: as answered (native units) and valued in USD (docs/schema.md). */
export const nftPnl = pgView('nft_pnl', {
  ...nftHoldingColumns(),
  collectionName: text('collection_name'),
  nativeTokenSymbol: text('native_token_symbol'),
  /** floorPrice as answered: in the chain's native token. */
  floorPriceNative: numeric('floor_price_native'),
  /** marketPrice as answered: the USD price of the chain's native token. */
  marketPriceUsd: numeric('market_price_usd'),
  /** market_price_usd, or for SUI holdings without it the SUI price in force at the snapshot. */
  nativePriceUsd: numeric('native_price_usd'),
  nativePriceSource: text('native_price_source').$type<'market_price' | 'token_prices'>(),
  /** token_count × floor_price_native × native_price_usd; null when a factor is unknown. */
  valueUsd: numeric('value_usd'),
}).existing();

export const datasetFreshness = pgView('dataset_freshness', {
  dataset: text('dataset').notNull(),
  target: text('target').notNull(),
  lastSuccessTick: at('last_success_tick').notNull(),
  lastSuccessAt: at('last_success_at').notNull(),
}).existing();
