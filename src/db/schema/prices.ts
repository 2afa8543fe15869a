import { integer, numeric, pgTable, primaryKey, smallint, text, timestamp, unique } from 'drizzle-orm/pg-core';

/**
 * Every token the price operation answered for: what changes rarely (so that storing a price never
 * writes here once the token is known). Readers use the `tokens` view, which adds last_seen_at from
 * the stored prices. `id` is the compact surrogate the price points carry.
 */
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
 * One row per price the upstream reported, range-partitioned by month of price_time (the
 * partitioning is added by hand in the migration). Kept at 64 bytes a tuple: columns ordered so
 * that nothing is padded, the token and source as small integers, and fetched_at as whole seconds
 * after price_time. No foreign keys: they would add a trigger call per row; the writer records
 * tokens and sources in the same transaction first. Readers use the token_prices view.
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
