import { integer, numeric, pgTable, primaryKey, smallint, text, timestamp, unique } from 'drizzle-orm/pg-core';

/**
 * What rarely changes of each priced token of each chain (storing a price writes nothing here); read
 * through `tokens`. The same address may be a token on two chains: the key is the token and its chain.
 */
export const tokenCatalog = pgTable(
  'token_catalog',
  {
    /** The token on its chain: a SUI coin type in its normal form, an EVM address lower-case, a Solana mint as given. */
    coinType: text('coin_type').notNull(),
    /** chain/chain-name.ts's spelling: sui, ethereum, arbitrum, solana, … */
    chain: text('chain').notNull(),
    id: integer('id').notNull().generatedByDefaultAsIdentity(),
    symbol: text('symbol'),
    decimals: integer('decimals'),
    /** Earliest upstream `timestamp` answered for the token, priced or not. */
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
    /** Latest `timestamp` of an answer without a price (null: every answer had one). */
    unpricedSeenAt: timestamp('unpriced_seen_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: 'token_catalog_pkey', columns: [t.coinType, t.chain] }),
    unique('token_catalog_id_key').on(t.id),
  ],
);

/** Names of price sources, so that a price point stores two bytes instead of the name. */
export const priceSources = pgTable('price_sources', {
  id: smallint('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull().unique('price_sources_name_key'),
});

/**
 * One row per price, partitioned by month, read through token_prices; 64 bytes a tuple (origin fits
 * in the padding). No foreign keys (a trigger call per row): the writer records tokens and sources first.
 */
export const tokenPricePoints = pgTable(
  'token_price_points',
  {
    priceTime: timestamp('price_time', { withTimezone: true }).notNull(),
    tokenId: integer('token_id').notNull(),
    /** fetched_at − price_time in whole seconds (both truncated to the second). */
    fetchDelaySeconds: integer('fetch_delay_s').notNull(),
    sourceId: smallint('source_id'),
    price: numeric('price').notNull(),
    price24hAgo: numeric('price_24h_ago'),
    /** Which answer carried it: 1 a price request, 2 a positions answer, 3 an NFT answer (token_prices.origin names them). */
    origin: smallint('origin').notNull(),
  },
  (t) => [primaryKey({ name: 'token_price_points_pkey', columns: [t.tokenId, t.priceTime] })],
);
