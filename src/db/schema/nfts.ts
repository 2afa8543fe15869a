import {
  bigint,
  boolean,
  foreignKey,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/** NFT collections with the native token of their chain. */
export const nftCollections = pgTable('nft_collections', {
  collectionId: text('collection_id').primaryKey(),
  /** Upper-case, as in the upstream's chain list (SUI, ETH, ...). */
  chain: text('chain'),
  name: text('name'),
  description: text('description'),
  externalUrl: text('external_url'),
  imageUrl: text('image_url'),
  totalItems: bigint('total_items', { mode: 'number' }),
  verified: boolean('verified'),
  scam: boolean('scam'),
  nativeTokenName: text('native_token_name'),
  nativeTokenSymbol: text('native_token_symbol'),
  nativeTokenDecimals: integer('native_token_decimals'),
  nativeTokenCmcId: text('native_token_cmc_id'),
  nativeTokenCmcSlug: text('native_token_cmc_slug'),
  nativeTokenCgId: text('native_token_cg_id'),
  /** Collection and native-token fields no column maps. */
  extra: jsonb('extra').$type<Record<string, unknown>>(),
  firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
  /** Tick of the answer the descriptive columns come from: an older tick never overwrites them. */
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
});

/** A holding as answered: columns of nft_holding_snapshots and of the view nft_pnl. */
export const nftHoldingColumns = () => ({
  owner: text('owner').notNull(),
  collectionId: text('collection_id').notNull(),
  snapshotAt: timestamp('snapshot_at', { withTimezone: true }).notNull(),
  chain: text('chain'),
  tokenCount: integer('token_count').notNull(),
  floorPrice: numeric('floor_price'),
  marketPrice: numeric('market_price'),
  /** Null when the upstream gave no `profit` (PnL not requested), never zero. */
  realizedPnl: numeric('realized_pnl'),
  unrealizedPnl: numeric('unrealized_pnl'),
});

/** One row per (owner, collection) per tick, partitioned by month of snapshot_at. */
export const nftHoldingSnapshots = pgTable(
  'nft_holding_snapshots',
  {
    ...nftHoldingColumns(),
    /** Fields of the holding group no column maps. */
    extra: jsonb('extra').$type<Record<string, unknown>>(),
  },
  (t) => [
    primaryKey({ name: 'nft_holding_snapshots_pkey', columns: [t.owner, t.collectionId, t.snapshotAt] }),
    foreignKey({
      name: 'nft_holding_snapshots_collection_fkey',
      columns: [t.collectionId],
      foreignColumns: [nftCollections.collectionId],
    }),
  ],
);

/** Each NFT an address holds or held. */
export const nftTokens = pgTable(
  'nft_tokens',
  {
    owner: text('owner').notNull(),
    collectionId: text('collection_id').notNull(),
    tokenId: text('token_id').notNull(),
    chain: text('chain'),
    contractAddress: text('contract_address'),
    name: text('name'),
    imageUrl: text('image_url'),
    rank: text('rank'),
    rarityScore: numeric('rarity_score'),
    royalty: numeric('royalty'),
    price: numeric('price'),
    cost: numeric('cost'),
    extra: jsonb('extra').$type<Record<string, unknown>>(),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
    /** First tick whose refresh (covering its chain) no longer returned it; null while held. */
    releasedAt: timestamp('released_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: 'nft_tokens_pkey', columns: [t.owner, t.collectionId, t.tokenId] }),
    foreignKey({
      name: 'nft_tokens_collection_fkey',
      columns: [t.collectionId],
      foreignColumns: [nftCollections.collectionId],
    }),
  ],
);

/** An NFT refresh: columns of nft_refreshes and of the view nft_refresh_values. */
export const nftRefreshColumns = () => ({
  owner: text('owner').notNull(),
  snapshotAt: timestamp('snapshot_at', { withTimezone: true }).notNull(),
  /** The chain the refresh asked for, or ALL. */
  scopeChain: text('scope_chain').notNull(),
  collectionCount: integer('collection_count').notNull(),
  tokenCount: integer('token_count').notNull(),
});

/** One row per successful NFT refresh of an address, even when it held nothing then. */
export const nftRefreshes = pgTable('nft_refreshes', nftRefreshColumns(), (t) => [
  primaryKey({ name: 'nft_refreshes_pkey', columns: [t.owner, t.snapshotAt] }),
]);
