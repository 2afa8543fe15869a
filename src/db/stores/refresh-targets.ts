import type { AddressDataset } from '../../datasets.ts';
import type { Database } from '../client.ts';
import { runSql } from '../query.ts';
import type { refreshTargets } from '../schema/index.ts';
import type { Tx } from '../transaction.ts';

/** A refresh_targets row (src/refresh/lifecycle.ts owns what goes in it). */
export type RefreshTargetRow = typeof refreshTargets.$inferSelect;

/** The target's row, locked until the job's transaction ends (two refreshes of one target take turns). */
export async function lockRefreshTarget(
  tx: Tx,
  dataset: AddressDataset,
  target: string,
): Promise<RefreshTargetRow | undefined> {
  const [row] = await tx.sql<RefreshTargetRow[]>`
    select dataset, target, last_tick as "lastTick", substance, observations, evidence, prices,
           change_rate_per_hour as "changeRatePerHour", changed_at as "changedAt", compared, changes
    from refresh_targets where dataset = ${dataset} and target = ${target}
    for update`;
  return row;
}

export async function saveRefreshTarget(tx: Tx, row: RefreshTargetRow): Promise<void> {
  await tx.sql`
    insert into refresh_targets (dataset, target, last_tick, substance, observations, evidence, prices,
                                 change_rate_per_hour, changed_at, compared, changes)
    values (${row.dataset}, ${row.target}, ${row.lastTick},
            ${row.substance === null ? null : JSON.stringify(row.substance)}::jsonb,
            ${JSON.stringify(row.observations)}::jsonb, ${JSON.stringify(row.evidence)}::jsonb,
            ${row.prices === null ? null : JSON.stringify(row.prices)}::jsonb, ${row.changeRatePerHour}, ${row.changedAt}, ${row.compared},
            ${row.changes})
    on conflict (dataset, target) do update set
      last_tick = excluded.last_tick, substance = excluded.substance, observations = excluded.observations,
      evidence = excluded.evidence, prices = excluded.prices,
      change_rate_per_hour = excluded.change_rate_per_hour, changed_at = excluded.changed_at,
      compared = excluded.compared, changes = excluded.changes`;
}

/** What the policy reads of each watched address of `dataset`: its settings and what its refreshes taught. */
export interface TargetState {
  target: string;
  maxAgeSeconds: number | null;
  everySeconds: number | null;
  /** The refresh_targets row's, else the watermark's (refreshed before the policy recorded it); null: never. */
  lastTick: Date | null;
  /** Null when no refresh was recorded by the policy. */
  changeRatePerHour: number | null;
  changedAt: Date | null;
  /** Positions: the largest relative move of a token's newest stored price since the last refresh's answer. */
  priceMove: number | null;
}

/**
 * The watched targets of `dataset` as the policy reads them. `priceMoves` (a slot's choice only):
 * also the largest move of a token's newest stored price since each target's last answer, the newest
 * price of each token looked up once.
 */
export async function loadTargetStates(
  database: Database,
  dataset: AddressDataset,
  { priceMoves = false } = {},
): Promise<TargetState[]> {
  const { sql } = database;
  const moves = priceMoves
    ? sql`
    with held as (
      select r.target, p.key, p.value::float8 as then
      from refresh_targets r, jsonb_each_text(r.prices) p
      where r.dataset = ${dataset} and r.prices is not null),
    tokens as (select distinct key from held),
    newest as (
      select t.key, n.price::float8 as now
      from tokens t
      join token_catalog c on c.chain = split_part(t.key, ':', 1) and c.coin_type = substr(t.key, length(split_part(t.key, ':', 1)) + 2)
      cross join lateral (
        select p.price from token_price_points p where p.token_id = c.id order by p.price_time desc limit 1
      ) n)
    select h.target, max(abs(n.now / h.then - 1)) as move
    from held h join newest n on n.key = h.key
    where h.then > 0
    group by h.target`
    : sql`select null::text as target, null::float8 as move where false`;
  return runSql(database, 'refresh_targets.read')<TargetState[]>`
    with moves as (${moves})
    select a.address as target, a.max_age_s as "maxAgeSeconds", a.every_s as "everySeconds",
           coalesce(r.last_tick, w.last_success_tick) as "lastTick",
           r.change_rate_per_hour as "changeRatePerHour", r.changed_at as "changedAt", m.move as "priceMove"
    from watched_addresses a
    left join refresh_targets r on r.dataset = ${dataset} and r.target = a.address
    left join dataset_watermarks w on w.dataset = ${dataset} and w.target = a.address
    left join moves m on m.target = a.address
    where ${dataset} = any(a.datasets)
    order by a.address`;
}

/** Refreshes read per target to seed its history: enough for an estimate, bounded for a large install. */
const SEED_REFRESHES = 48;

/** One stored refresh of a target: its tick and what it held, as the refresh policy compares it. */
export interface StoredRefresh {
  target: string;
  tick: Date;
  /** Positions: one row per input or current token amount entry; NFT holdings: one row per collection. */
  entries: { id: string; kind: string; token: string | null; amount: string | null }[];
}

/**
 * The last SEED_REFRESHES refreshes of each of `targets` that the stored snapshots show (position
 * amounts or NFT holding counts per refresh), oldest first per target: what an installation that ran
 * before the refresh policy knows of how often each address changed.
 */
export async function loadStoredRefreshes(
  database: Database,
  dataset: AddressDataset,
  targets: string[],
): Promise<StoredRefresh[]> {
  if (targets.length === 0) return [];
  const rows = await runSql(database, 'refresh_targets.read')<
    {
      target: string;
      tick: Date;
      id: string | null;
      kind: string | null;
      token: string | null;
      amount: string | null;
    }[]
  >`${
    dataset === 'positions'
      ? database.sql`
    with r as (
      select owner, snapshot_at, row_number() over (partition by owner order by snapshot_at desc) as n
      from position_refreshes where owner = any(${targets}::text[]))
    select r.owner as target, r.snapshot_at as tick, a.position_id as id, a.kind::text as kind,
           coalesce(a.token, a.token_symbol) as token, a.amount::text as amount
    from r left join position_amounts a
      on a.owner = r.owner and a.snapshot_at = r.snapshot_at and a.kind in ('input', 'current_token')
    where r.n <= ${SEED_REFRESHES}
    order by 1, 2`
      : database.sql`
    with r as (
      select owner, snapshot_at, row_number() over (partition by owner order by snapshot_at desc) as n
      from nft_refreshes where owner = any(${targets}::text[]))
    select r.owner as target, r.snapshot_at as tick, h.collection_id as id, 'collection' as kind,
           null as token, h.token_count::text as amount
    from r left join nft_holding_snapshots h on h.owner = r.owner and h.snapshot_at = r.snapshot_at
    where r.n <= ${SEED_REFRESHES}
    order by 1, 2`
  }`;
  const refreshes: StoredRefresh[] = [];
  for (const row of rows) {
    let last = refreshes.at(-1);
    if (!last || last.target !== row.target || last.tick.getTime() !== row.tick.getTime()) {
      last = { target: row.target, tick: row.tick, entries: [] };
      refreshes.push(last);
    }
    if (row.id !== null) last.entries.push({ id: row.id, kind: row.kind!, token: row.token, amount: row.amount });
  }
  return refreshes;
}

/** Rows seeded from stored refreshes; a target a refresh recorded meanwhile keeps its own row. */
export async function insertSeededTargets(database: Database, rows: RefreshTargetRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const column = <T>(pick: (row: RefreshTargetRow) => T) => rows.map(pick);
  const result = await runSql(database, 'refresh_targets.seed')`
    insert into refresh_targets (dataset, target, last_tick, substance, observations, evidence, prices,
                                 change_rate_per_hour, changed_at, compared, changes)
    select dataset, target, last_tick, null, observations, evidence, null, change_rate_per_hour, changed_at, compared, changes
    from unnest(${column((row) => row.dataset)}::text[], ${column((row) => row.target)}::text[],
                ${column((row) => row.lastTick.toISOString())}::timestamptz[],
                ${column((row) => JSON.stringify(row.observations))}::jsonb[], ${column((row) => JSON.stringify(row.evidence))}::jsonb[],
                ${column((row) => row.changeRatePerHour)}::float8[], ${column((row) => row.changedAt?.toISOString() ?? null)}::timestamptz[],
                ${column((row) => row.compared)}::int[], ${column((row) => row.changes)}::int[])
      as s(dataset, target, last_tick, observations, evidence, change_rate_per_hour, changed_at, compared, changes)
    on conflict (dataset, target) do nothing`;
  return result.count;
}

/** Watched targets of `dataset` refreshed before (a watermark) that refresh_targets has no row for, at most `limit`. */
export async function targetsToSeed(database: Database, dataset: AddressDataset, limit: number): Promise<string[]> {
  const rows = await runSql(database, 'refresh_targets.read')<{ target: string }[]>`
    select w.target from dataset_watermarks w
    join watched_addresses a on a.address = w.target and ${dataset} = any(a.datasets)
    where w.dataset = ${dataset}
      and not exists (select 1 from refresh_targets r where r.dataset = ${dataset} and r.target = w.target)
    order by w.target
    limit ${limit}`;
  return rows.map((row) => row.target);
}
