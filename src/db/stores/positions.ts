import type { NormalizedPositions, PositionRow, PositionSnapshotRow } from '../schema/rows.ts';
import { ensureMonthPartitions } from '../partitions.ts';
import type { Tx } from '../transaction.ts';
import { snapshotPoints, type SnapshotPoint } from './position-snapshot-points.ts';
import { resolvePositionTokens } from './position-tokens.ts';
import { upsertProtocols } from './protocols.ts';
import { jsonText, newestWins, overwrite, writtenCounts } from './upsert.ts';

export interface PositionsWriteContext {
  owner: string;
  snapshotAt: Date;
  /** An unfiltered refresh: the owner's positions it did not return are closed at snapshotAt. */
  complete: boolean;
}

/**
 * Writes one owner's positions at one tick; writing it again changes nothing, a late older tick never
 * moves last_seen_at back nor closes or reopens a position. The tokens come first, so that snapshot
 * rows carry token ids and deltas computed here; the rest is pipelined: four round trips per job.
 */
export async function writePositions(
  tx: Tx,
  normalized: NormalizedPositions,
  ctx: PositionsWriteContext,
): Promise<Record<string, number>> {
  await ensureMonthPartitions(tx, 'position_snapshot_points', [ctx.snapshotAt]);
  const ids = normalized.positions.map((position) => position.positionId);
  const { tokenOf, inserted: tokensInserted } = await resolvePositionTokens(tx, normalized.amounts);
  const [protocols, upserted, snapshotExtras, closed, , refreshes] = await Promise.all([
    upsertProtocols(tx, normalized.protocols),
    upsertPositions(tx, normalized.positions, normalized.snapshots),
    // After the upsert, which wrote or locked every returned position: the extras the snapshots are stored against.
    readSnapshotExtras(tx, ctx.owner, ids),
    ctx.complete ? closeMissing(tx, ctx, ids) : undefined,
    ctx.complete ? deleteStaleSnapshots(tx, ctx, ids) : undefined,
    recordRefresh(tx, ctx, ids.length),
  ]);
  const points = await upsertSnapshotPoints(tx, snapshotPoints(normalized, tokenOf, snapshotExtras), ctx);
  return writtenCounts({
    protocols,
    positions: upserted + (closed ?? 0),
    position_tokens: tokensInserted,
    position_snapshots: points.snapshots,
    position_amounts: points.amounts,
    position_farming: points.farming,
    position_refreshes: refreshes,
  });
}

// A nested position's key names its place in its parent, not its upstream id: that may change.
const POSITION_UPDATE = newestWins('upstream_position_id, chain, type', {
  protocol_id:
    'case when excluded.last_seen_at >= t.last_seen_at then coalesce(excluded.protocol_id, t.protocol_id) else t.protocol_id end',
  // Seen at or after the tick that closed it: open again.
  closed_at: 'case when excluded.last_seen_at >= t.closed_at then null else t.closed_at end',
});

/** The value columns of position_snapshot_points. */
const POINT_COLUMNS = `fee, input_value, yield_collected_value, current_value, current_yield_value,
  asset_value, debt_value, net_value, pnl, health_factor, extra,
  amount_kinds, amount_tokens, amounts, amount_values, amount_token_info, amount_extras,
  farming_base_apr, farming_rewards_apr, farming_total_apr, farming_total_apy, farming_rewards, farming_extras`;
const POINT_UPDATE = overwrite(POINT_COLUMNS);
const REFRESH_UPDATE = overwrite('complete, position_count');

/** A new position takes this tick's snapshot `extra` as its snapshot_extra, kept from then on. */
async function upsertPositions(tx: Tx, rows: PositionRow[], snapshots: PositionSnapshotRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const extras = new Map(snapshots.map((snapshot) => [snapshot.positionId, snapshot.extra]));
  const result = await tx.sql`
    insert into positions as t (owner, position_id, upstream_position_id, parent_position_id, chain, type, protocol_id, first_seen_at, last_seen_at, closed_at, snapshot_extra)
    select i.*
    from unnest(
      ${rows.map((r) => r.owner)}::text[], ${rows.map((r) => r.positionId)}::text[],
      ${rows.map((r) => r.upstreamPositionId)}::text[], ${rows.map((r) => r.parentPositionId)}::text[], ${rows.map((r) => r.chain)}::text[],
      ${rows.map((r) => r.type)}::text[], ${rows.map((r) => r.protocolId)}::text[], ${rows.map((r) => r.firstSeenAt.toISOString())}::timestamptz[],
      ${rows.map((r) => r.lastSeenAt.toISOString())}::timestamptz[], ${rows.map((r) => r.closedAt?.toISOString() ?? null)}::timestamptz[],
      ${rows.map((r) => jsonText(extras.get(r.positionId)))}::text[]::jsonb[])
      as i(owner, position_id, upstream_position_id, parent_position_id, chain, type, protocol_id, first_seen_at, last_seen_at, closed_at, snapshot_extra)
    on conflict (owner, position_id) ${tx.sql.unsafe(POSITION_UPDATE.update)}`;
  return result.count;
}

/** positions.snapshot_extra of the given positions of the owner, by position_id (null ones left out). */
async function readSnapshotExtras(
  tx: Tx,
  owner: string,
  positionIds: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const rows = await tx.sql<{ positionId: string; snapshotExtra: Record<string, unknown> }[]>`
    select position_id as "positionId", snapshot_extra as "snapshotExtra" from positions
    where owner = ${owner} and position_id = any(${positionIds}::text[]) and snapshot_extra is not null`;
  return new Map(rows.map((row) => [row.positionId, row.snapshotExtra]));
}

/** Closes the positions a complete refresh did not return, unless seen later (or closed later: then now). */
async function closeMissing(tx: Tx, ctx: PositionsWriteContext, returned: string[]): Promise<number> {
  const result = await tx.sql`
    update positions set closed_at = ${ctx.snapshotAt}
    where owner = ${ctx.owner} and position_id <> all(${returned}::text[])
      and last_seen_at <= ${ctx.snapshotAt} and (closed_at is null or closed_at > ${ctx.snapshotAt})`;
  return result.count;
}

/**
 * A rewrite of a tick removes the snapshots of positions it lost. On a first write the EXISTS skips it
 * whatever plan is cached (one made while the partition was small scans all of it).
 */
async function deleteStaleSnapshots(tx: Tx, ctx: PositionsWriteContext, returned: string[]): Promise<void> {
  await tx.sql`
    delete from position_snapshot_points
    where exists (select 1 from position_refreshes r where r.owner = ${ctx.owner} and r.snapshot_at = ${ctx.snapshotAt})
      and snapshot_at = ${ctx.snapshotAt}
      and position_key = any(array(select position_key from positions where owner = ${ctx.owner} and position_id <> all(${returned}::text[])))`;
}

/** Upserts one row per position (after upsertPositions); returns the snapshots and entries written. */
async function upsertSnapshotPoints(
  tx: Tx,
  points: SnapshotPoint[],
  ctx: PositionsWriteContext,
): Promise<{ snapshots: number; amounts: number; farming: number }> {
  if (points.length === 0) return { snapshots: 0, amounts: 0, farming: 0 };
  const rows = await tx.sql<{ amounts: number; farming: number }[]>`
    insert into position_snapshot_points as t (position_key, snapshot_at, ${tx.sql.unsafe(POINT_COLUMNS)})
    select p.position_key, ${ctx.snapshotAt}::timestamptz, r.fee, r.input_value, r.yield_collected_value, r.current_value, r.current_yield_value,
      r.asset_value, r.debt_value, r.net_value, r.pnl, r.health_factor, r.extra,
      r.amount_kinds, r.amount_tokens, r.amounts, r.amount_values, chaintap_jsonb_array(r.amount_token_info), chaintap_jsonb_array(r.amount_extras),
      r.farming_base_apr, r.farming_rewards_apr, r.farming_total_apr, r.farming_total_apy,
      chaintap_jsonb_array(r.farming_rewards), chaintap_jsonb_array(r.farming_extras)
    from jsonb_to_recordset(${JSON.stringify(points)}::jsonb) as r(
      position_id text, fee numeric, input_value numeric, yield_collected_value numeric, current_value numeric, current_yield_value numeric,
      asset_value numeric, debt_value numeric, net_value numeric, pnl numeric, health_factor numeric, extra jsonb,
      amount_kinds position_amount_kind[], amount_tokens integer[], amount_token_info jsonb, amounts numeric[], amount_values numeric[], amount_extras jsonb,
      farming_base_apr numeric[], farming_rewards_apr numeric[], farming_total_apr numeric[], farming_total_apy numeric[],
      farming_rewards jsonb, farming_extras jsonb)
    -- A left join: a position not written before this statement fails it (position_key is not null)
    -- instead of leaving its snapshot out.
    left join positions p on p.owner = ${ctx.owner} and p.position_id = r.position_id
    on conflict (position_key, snapshot_at) ${tx.sql.unsafe(POINT_UPDATE)}
    returning coalesce(cardinality(amount_kinds), 0)::int as amounts, coalesce(cardinality(farming_base_apr), 0)::int as farming`;
  return {
    snapshots: rows.length,
    amounts: rows.reduce((sum, row) => sum + row.amounts, 0),
    farming: rows.reduce((sum, row) => sum + row.farming, 0),
  };
}

async function recordRefresh(tx: Tx, ctx: PositionsWriteContext, positionCount: number): Promise<number> {
  const result = await tx.sql`
    insert into position_refreshes as t (owner, snapshot_at, complete, position_count)
    values (${ctx.owner}, ${ctx.snapshotAt}, ${ctx.complete}, ${positionCount})
    on conflict (owner, snapshot_at) ${tx.sql.unsafe(REFRESH_UPDATE)}`;
  return result.count;
}
