import { sql } from 'drizzle-orm';
import { boolean, check, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { AddressDataset } from '../../datasets.ts';

/** The token watchlist: coin types in their normal form (src/chain/coin-type.ts). */
export const watchedTokens = pgTable('watched_tokens', {
  coinType: text('coin_type').primaryKey(),
  addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The address watchlist with the options each address is refreshed with. */
export const watchedAddresses = pgTable(
  'watched_addresses',
  {
    /** The address in its normal form (src/chain/address.ts). */
    address: text('address').primaryKey(),
    /** What the address is refreshed for: positions, nfts or both (in that order, never empty). */
    datasets: text('datasets')
      .array()
      .$type<AddressDataset[]>()
      .notNull()
      .default(sql`'{positions,nfts}'::text[]`),
    /** Positions: only this chain (null: every chain). A filtered refresh never closes positions. */
    chain: text('chain'),
    /** Positions: only these protocol ids (null: every protocol). */
    protocols: text('protocols').array(),
    /** NFT holdings: one chain of the upstream's list, or ALL. */
    nftChain: text('nft_chain').notNull().default('ALL'),
    /** NFT holdings: ask for profit and loss. */
    includePnl: boolean('include_pnl').notNull().default(false),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
    /** Longest time between two refreshes of each dataset, in seconds (null: REFRESH_MAX_AGE). */
    maxAgeSeconds: integer('max_age_s'),
    /** A fixed cadence in seconds, refreshed at that interval whatever it changes (null: by change rate). */
    everySeconds: integer('every_s'),
  },
  (t) => [
    check('watched_addresses_max_age_s_check', sql`${t.maxAgeSeconds} > 0`),
    check('watched_addresses_every_s_check', sql`${t.everySeconds} > 0`),
    check(
      'watched_addresses_datasets_check',
      sql`cardinality(${t.datasets}) > 0 AND ${t.datasets} <@ '{positions,nfts}'::text[]`,
    ),
  ],
);
