import {
  bigint, bigserial, boolean, foreignKey, integer, jsonb, numeric, pgEnum, pgTable, primaryKey, text, timestamp, unique,
} from 'drizzle-orm/pg-core';

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
    positionId: text('position_id').notNull(),
    chain: text('chain').notNull(),
    type: text('type').notNull(),
    protocolId: text('protocol_id').references(() => protocols.protocolId),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
    /** First tick of an unfiltered refresh that no longer returned it; null while open. */
    closedAt: timestamp('closed_at', { withTimezone: true }),
  },
  (t) => [primaryKey({ name: 'positions_pkey', columns: [t.owner, t.positionId] })],
);

/**
 * One row per position per tick (partitioned by month of snapshot_at). Value totals are the exact
 * sums of the entries' `value`; null when an entry has no value or `current` is absent.
 */
export const positionSnapshots = pgTable(
  'position_snapshots',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    owner: text('owner').notNull(),
    positionId: text('position_id').notNull(),
    snapshotAt: timestamp('snapshot_at', { withTimezone: true }).notNull(),
    fee: numeric('fee'),
    inputValue: numeric('input_value'),
    yieldCollectedValue: numeric('yield_collected_value'),
    currentValue: numeric('current_value'),
    currentYieldValue: numeric('current_yield_value'),
    /** Fields of the position that no column maps (unknown fields of the variant, meta, owner). */
    extra: jsonb('extra').$type<Record<string, unknown>>(),
  },
  (t) => [
    primaryKey({ name: 'position_snapshots_pkey', columns: [t.id, t.snapshotAt] }),
    unique('position_snapshots_owner_position_id_snapshot_at_key').on(t.owner, t.positionId, t.snapshotAt),
    foreignKey({ name: 'position_snapshots_position_fkey', columns: [t.owner, t.positionId], foreignColumns: [positions.owner, positions.positionId] }),
  ],
);

export const positionAmountKind = pgEnum('position_amount_kind', ['input', 'yield_collected', 'current_token', 'current_yield']);

/** The amount entries of a snapshot: `input`, `yieldCollected`, `current.tokens`, `current.yield`. */
export const positionAmounts = pgTable(
  'position_amounts',
  {
    snapshotId: bigint('snapshot_id', { mode: 'number' }).notNull(),
    snapshotAt: timestamp('snapshot_at', { withTimezone: true }).notNull(),
    kind: positionAmountKind('kind').notNull(),
    /** Position of the entry in its list, from 0. */
    idx: integer('idx').notNull(),
    /** Coin type (normal form) or address of the token; from `token` or its object's id field. */
    token: text('token'),
    tokenSymbol: text('token_symbol'),
    amount: numeric('amount'),
    value: numeric('value'),
    /** `token` as received when it came as an object. */
    tokenInfo: jsonb('token_info').$type<Record<string, unknown>>(),
    extra: jsonb('extra').$type<Record<string, unknown>>(),
  },
  (t) => [
    primaryKey({ name: 'position_amounts_pkey', columns: [t.snapshotId, t.snapshotAt, t.kind, t.idx] }),
    foreignKey({ name: 'position_amounts_snapshot_fkey', columns: [t.snapshotId, t.snapshotAt], foreignColumns: [positionSnapshots.id, positionSnapshots.snapshotAt] }).onDelete('cascade'),
  ],
);

/** The farming entries of a snapshot; `rewards` kept as received (its shape is not documented). */
export const positionFarming = pgTable(
  'position_farming',
  {
    snapshotId: bigint('snapshot_id', { mode: 'number' }).notNull(),
    snapshotAt: timestamp('snapshot_at', { withTimezone: true }).notNull(),
    idx: integer('idx').notNull(),
    baseApr: numeric('base_apr'),
    rewardsApr: numeric('rewards_apr'),
    totalApr: numeric('total_apr'),
    totalApy: numeric('total_apy'),
    rewards: jsonb('rewards'),
    extra: jsonb('extra').$type<Record<string, unknown>>(),
  },
  (t) => [
    primaryKey({ name: 'position_farming_pkey', columns: [t.snapshotId, t.snapshotAt, t.idx] }),
    foreignKey({ name: 'position_farming_snapshot_fkey', columns: [t.snapshotId, t.snapshotAt], foreignColumns: [positionSnapshots.id, positionSnapshots.snapshotAt] }).onDelete('cascade'),
  ],
);

/**
 * One row per successful positions refresh of an address: the tick it stands for, even when the
 * address held nothing then, so that "latest" never falls back to an older tick.
 */
export const positionRefreshes = pgTable(
  'position_refreshes',
  {
    owner: text('owner').notNull(),
    snapshotAt: timestamp('snapshot_at', { withTimezone: true }).notNull(),
    /** Unfiltered refresh (no chain or protocol filter): it closes the positions it did not return. */
    complete: boolean('complete').notNull(),
    positionCount: integer('position_count').notNull(),
  },
  (t) => [primaryKey({ name: 'position_refreshes_pkey', columns: [t.owner, t.snapshotAt] })],
);
