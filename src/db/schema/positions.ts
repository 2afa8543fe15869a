import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  foreignKey,
  integer,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core';
import { bytea } from './bytea.ts';

/** DeFi protocols, from the protocol list and from the `meta.protocol` of positions. */
export const protocols = pgTable('protocols', {
  protocolId: text('protocol_id').primaryKey(),
  name: text('name'),
  logo: text('logo'),
  url: text('url'),
});

/** Current state of each position an address holds or held. */
export const positions = pgTable(
  'positions',
  {
    owner: text('owner').notNull(),
    /** The row key: the upstream's positionId, made unique within an answer (docs/schema.md). */
    positionId: text('position_id').notNull(),
    /** The upstream's own positionId, shared by the positions it repeats it for. */
    upstreamPositionId: text('upstream_position_id').notNull(),
    /** For a position nested in another's amount list (a Borrow's collateral): the parent's position_id. */
    parentPositionId: text('parent_position_id'),
    chain: text('chain').notNull(),
    type: text('type').notNull(),
    protocolId: text('protocol_id').references(() => protocols.protocolId),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
    /** First tick of an unfiltered refresh that no longer returned it; null while open. */
    closedAt: timestamp('closed_at', { withTimezone: true }),
    /** Compact key of the position in its snapshots. */
    positionKey: bigint('position_key', { mode: 'number' }).notNull().generatedByDefaultAsIdentity(),
    /** The `extra` of its first snapshot, never changed: snapshots store their difference from it. */
    snapshotExtra: jsonb('snapshot_extra').$type<Record<string, unknown>>(),
  },
  (t) => [
    primaryKey({ name: 'positions_pkey', columns: [t.owner, t.positionId] }),
    unique('positions_position_key_key').on(t.positionKey),
  ],
);

export const positionAmountKind = pgEnum('position_amount_kind', [
  'input',
  'yield_collected',
  'current_token',
  'current_yield',
]);

/**
 * The tokens amount entries name, stored once for a 4-byte id. `info`: the first token object seen,
 * which entries store their own object's difference from. `digest` keys a token of any length in a
 * small index.
 */
export const positionTokens = pgTable(
  'position_tokens',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    token: text('token'),
    symbol: text('symbol'),
    info: jsonb('info').$type<Record<string, unknown>>(),
    digest: bytea('digest')
      .notNull()
      .generatedAlwaysAs(sql`chaintap_position_token_digest(token, symbol, info is not null)`),
  },
  (t) => [unique('position_tokens_digest_key').on(t.digest)],
);

/** A snapshot's values in USD (docs/schema.md): columns of position_snapshot_points and its views. */
export const snapshotValueColumns = () => ({
  inputValue: numeric('input_value'),
  yieldCollectedValue: numeric('yield_collected_value'),
  currentValue: numeric('current_value'),
  currentYieldValue: numeric('current_yield_value'),
  assetValue: numeric('asset_value'),
  debtValue: numeric('debt_value'),
  netValue: numeric('net_value'),
  /** Null for a Borrow: its answer holds no basis for one. */
  pnl: numeric('pnl'),
  healthFactor: numeric('health_factor'),
});

/**
 * One row per position per tick (partitioned by month), its entries as arrays: a third of the space
 * of a row per entry. Amounts are grouped by kind in the enum's order; an empty list is NULL.
 */
export const positionSnapshotPoints = pgTable(
  'position_snapshot_points',
  {
    positionKey: bigint('position_key', { mode: 'number' }).notNull(),
    snapshotAt: timestamp('snapshot_at', { withTimezone: true }).notNull(),
    fee: numeric('fee'),
    ...snapshotValueColumns(),
    /** Fields of the position that no column maps, as their difference from positions.snapshot_extra. */
    extra: jsonb('extra').$type<Record<string, unknown>>(),
    amountKinds: positionAmountKind('amount_kinds').array(),
    /** position_tokens.id of each entry. */
    amountTokens: integer('amount_tokens').array(),
    amounts: numeric('amounts').array(),
    amountValues: numeric('amount_values').array(),
    /** `token` as received when it came as an object, as its difference from its position_tokens.info. */
    amountTokenInfo: jsonb('amount_token_info').array(),
    amountExtras: jsonb('amount_extras').array(),
    farmingBaseApr: numeric('farming_base_apr').array(),
    farmingRewardsApr: numeric('farming_rewards_apr').array(),
    farmingTotalApr: numeric('farming_total_apr').array(),
    farmingTotalApy: numeric('farming_total_apy').array(),
    farmingRewards: jsonb('farming_rewards').array(),
    farmingExtras: jsonb('farming_extras').array(),
  },
  (t) => [
    primaryKey({ name: 'position_snapshot_points_pkey', columns: [t.positionKey, t.snapshotAt] }),
    // Every entry names a position_tokens row: a lookup that found none fails the write.
    check('position_snapshot_points_amount_tokens_check', sql`array_position(${t.amountTokens}, NULL) IS NULL`),
    foreignKey({
      name: 'position_snapshot_points_position_fkey',
      columns: [t.positionKey],
      foreignColumns: [positions.positionKey],
    }),
  ],
);

/** A positions refresh: columns of position_refreshes and of the view position_refresh_values. */
export const positionRefreshColumns = () => ({
  owner: text('owner').notNull(),
  snapshotAt: timestamp('snapshot_at', { withTimezone: true }).notNull(),
  /** Unfiltered refresh (no chain or protocol filter): it closes the positions it did not return. */
  complete: boolean('complete').notNull(),
  positionCount: integer('position_count').notNull(),
});

/** One row per successful positions refresh, even of nothing: "latest" never falls back to an older tick. */
export const positionRefreshes = pgTable('position_refreshes', positionRefreshColumns(), (t) => [
  primaryKey({ name: 'position_refreshes_pkey', columns: [t.owner, t.snapshotAt] }),
]);
