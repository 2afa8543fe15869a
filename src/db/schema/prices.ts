import { integer, numeric, pgTable, primaryKey, smallint, text, timestamp, unique } from 'drizzle-orm/pg-core';

/** What rarely changes of each priced token (storing a price writes nothing here); read through `tokens`. */
export const tokenCatalog = pgTable(
  'token_catalog',
  {
    coinType: text('coin_type').primaryKey(),
    id: integer('id').notNull().generatedByDefaultAsIdentity(),
    symbol: text('symbol'),
    decimals: integer('decimals'),
    /** Earliest upstream `timestamp` answered for the token, priced or not. */
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
    /** Latest `timestamp` of an answer without a price (null: every answer had one). */
    unpricedSeenAt: timestamp('unpriced_seen_at', { withTimezone: true }),
  },
  (t) => [unique('token_catalog_id_key').on(t.id)],
);

/** Names of price sources, so that a price point stores two bytes instead of the name. */
export const priceSources = pgTable('price_sources', {
  id: smallint('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull().unique('price_sources_name_key'),
});

/**
 * One row per price, partitioned by month, read through token_prices; 64 bytes a tuple. No foreign
 * keys (a trigger call per row): the writer records tokens and sources first.
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
  },
  (t) => [primaryKey({ name: 'token_price_points_pkey', columns: [t.tokenId, t.priceTime] })],
);
