import type { NormalizedPositions, PositionRow, PositionSnapshotRow } from '../schema/rows.ts';
import { jsonText } from '../json-text.ts';
import { ensureMonthPartitions } from '../partitions.ts';
import type { Tx } from '../transaction.ts';
import { snapshotPoints, type SnapshotPoint } from './position-snapshot-points.ts';
import { resolvePositionTokens } from './position-tokens.ts';
import { upsertProtocols } from './protocols.ts';

export interface PositionsWriteContext {
  owner: string;
  snapshotAt: Date;
  /** An unfiltered refresh: the owner's positions it did not return are closed at snapshotAt. */
  complete: boolean;
}

/**
 * Writes one owner's positions at one tick: protocols, positions (open/close history), the tokens
 * the amount entries name, one snapshot row per position with its amount and farming entries
 * (position_snapshot_points, read through the views position_snapshots, position_amounts and
 * position_farming), and the refresh itself. Keyed by the tick: writing the same answer again
 * changes nothing. History follows the newest tick only: an older tick arriving late never moves
 * last_seen_at back, nor closes or reopens a position.
 *
 * The entries' tokens come first, inserted or read in one statement (resolvePositionTokens), so that the snapshot rows carry token ids and the
 * differences computed here (jsonDelta: an entry's token object against its position_tokens row, a
 * snapshot's extra against positions.snapshot_extra; no digest or SQL function per entry in
 * Postgres). Each statement's text never changes (rows travel as one array per column, or as one
 * JSON document for the snapshot rows), so it is prepared once per connection; the statements up to
 * the positions' stored extras are sent together (postgres.js pipelines them; Postgres runs them in
 * order), then the snapshot rows: with the month's partitions made sure of and the tokens, four
 * round trips per job. Counts are of
 * the rows of the data contract's tables and views.
 */
export async function writePositions(
  tx: Tx,
  normalized: NormalizedPositions,
  ctx: PositionsWriteContext,
): Promise<Record<string, number>> {
  await ensureMonthPartitions(tx, ['position_snapshot_points'], [ctx.snapshotAt]);
  const written: Record<string, number> = {};
  const count = (table: string, n: number) => {
    if (n > 0) written[table] = (written[table] ?? 0) + n;
  };
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
  count('protocols', protocols);
  count('positions', upserted);
  count('positions', closed ?? 0);
  count('position_tokens', tokensInserted);
  count('position_snapshots', points.snapshots);
  count('position_amounts', points.amounts);
  count('position_farming', points.farming);
  count('position_refreshes', refreshes);
  return written;
}

/**
 * `excluded` wins only when its last_seen_at is at least the stored one (a late old tick never does).
 * A new position takes this tick's snapshot `extra` as its snapshot_extra, kept from then on.
 */
async function upsertPositions(tx: Tx, rows: PositionRow[], snapshots: PositionSnapshotRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const extras = new Map(snapshots.map((snapshot) => [snapshot.positionId, snapshot.extra]));
  const result = await tx.sql`
    insert into positions as t (owner, position_id, upstream_position_id, parent_position_id, chain, type, protocol_id, first_seen_at, last_seen_at, closed_at, snapshot_extra)
    select i.owner, i.position_id, i.upstream_position_id, i.parent_position_id, i.chain, i.type, i.protocol_id, i.first_seen_at, i.last_seen_at, i.closed_at, i.snapshot_extra::jsonb
    from unnest(
      ${rows.map((r) => r.owner)}::text[], ${rows.map((r) => r.positionId)}::text[],
      ${rows.map((r) => r.upstreamPositionId)}::text[], ${rows.map((r) => r.parentPositionId)}::text[], ${rows.map((r) => r.chain)}::text[],
      ${rows.map((r) => r.type)}::text[], ${rows.map((r) => r.protocolId)}::text[], ${rows.map((r) => r.firstSeenAt.toISOString())}::timestamptz[],
      ${rows.map((r) => r.lastSeenAt.toISOString())}::timestamptz[], ${rows.map((r) => r.closedAt?.toISOString() ?? null)}::timestamptz[],
      ${rows.map((r) => jsonText(extras.get(r.positionId)))}::text[])
      as i(owner, position_id, upstream_position_id, parent_position_id, chain, type, protocol_id, first_seen_at, last_seen_at, closed_at, snapshot_extra)
    on conflict (owner, position_id) do update set
      -- A nested position's key names its place in its parent, not its upstream id: that may change.
      upstream_position_id = case when excluded.last_seen_at >= t.last_seen_at then excluded.upstream_position_id else t.upstream_position_id end,
      chain = case when excluded.last_seen_at >= t.last_seen_at then excluded.chain else t.chain end,
      type = case when excluded.last_seen_at >= t.last_seen_at then excluded.type else t.type end,
      protocol_id = case when excluded.last_seen_at >= t.last_seen_at then coalesce(excluded.protocol_id, t.protocol_id) else t.protocol_id end,
      first_seen_at = least(t.first_seen_at, excluded.first_seen_at),
      last_seen_at = greatest(t.last_seen_at, excluded.last_seen_at),
      -- Seen at or after the tick that closed it: open again.
      closed_at = case when excluded.last_seen_at >= t.closed_at then null else t.closed_at end
    where (t.upstream_position_id, t.chain, t.type, t.protocol_id, t.first_seen_at, t.last_seen_at, t.closed_at) is distinct from (
      case when excluded.last_seen_at >= t.last_seen_at then excluded.upstream_position_id else t.upstream_position_id end,
      case when excluded.last_seen_at >= t.last_seen_at then excluded.chain else t.chain end,
      case when excluded.last_seen_at >= t.last_seen_at then excluded.type else t.type end,
      case when excluded.last_seen_at >= t.last_seen_at then coalesce(excluded.protocol_id, t.protocol_id) else t.protocol_id end,
      least(t.first_seen_at, excluded.first_seen_at),
      greatest(t.last_seen_at, excluded.last_seen_at),
      case when excluded.last_seen_at >= t.closed_at then null else t.closed_at end)`;
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

/**
 * Closes the owner's positions this complete refresh did not return, unless they were seen at a
 * later tick. A position already closed at a later tick is closed at this earlier one instead.
 */
async function closeMissing(tx: Tx, ctx: PositionsWriteContext, returned: string[]): Promise<number> {
  const result = await tx.sql`
    update positions set closed_at = ${ctx.snapshotAt}
    where owner = ${ctx.owner} and position_id <> all(${returned}::text[])
      and last_seen_at <= ${ctx.snapshotAt} and (closed_at is null or closed_at > ${ctx.snapshotAt})`;
  return result.count;
}

/**
 * A rewrite of a tick whose answer lost positions removes their snapshots of that tick. Only a tick
 * written before (its refresh is recorded, which this job does after this statement) can have any:
 * on a first write the EXISTS, evaluated once, skips the delete whatever plan it has. (A plan cached
 * while a partition was small scans the whole partition; once per job that was most of the cost.)
 */
async function deleteStaleSnapshots(tx: Tx, ctx: PositionsWriteContext, returned: string[]): Promise<void> {
  await tx.sql`
    delete from position_snapshot_points
    where exists (select 1 from position_refreshes r where r.owner = ${ctx.owner} and r.snapshot_at = ${ctx.snapshotAt})
      and snapshot_at = ${ctx.snapshotAt}
      and position_key = any(array(select position_key from positions where owner = ${ctx.owner} and position_id <> all(${returned}::text[])))`;
}

/**
 * Upserts one row per position (a row is touched only when a value moves; upsertPositions ran
 * before, in this transaction). Returns how many snapshots, amount entries and farming entries it
 * wrote.
 */
async function upsertSnapshotPoints(
  tx: Tx,
  points: SnapshotPoint[],
  ctx: PositionsWriteContext,
): Promise<{ snapshots: number; amounts: number; farming: number }> {
  if (points.length === 0) return { snapshots: 0, amounts: 0, farming: 0 };
  const rows = await tx.sql<{ amounts: number; farming: number }[]>`
    insert into position_snapshot_points as t (
      position_key, snapshot_at, fee, input_value, yield_collected_value, current_value, current_yield_value,
      asset_value, debt_value, net_value, pnl, health_factor, extra,
      amount_kinds, amount_tokens, amounts, amount_values, amount_token_info, amount_extras,
      farming_base_apr, farming_rewards_apr, farming_total_apr, farming_total_apy, farming_rewards, farming_extras)
    select p.position_key, ${ctx.snapshotAt}::timestamptz, r.fee, r.input_value, r.yield_collected_value, r.current_value, r.current_yield_value,
      r.asset_value, r.debt_value, r.net_value, r.pnl, r.health_factor,
      r.extra,
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
    on conflict (position_key, snapshot_at) do update set
      fee = excluded.fee, input_value = excluded.input_value, yield_collected_value = excluded.yield_collected_value,
      current_value = excluded.current_value, current_yield_value = excluded.current_yield_value,
      asset_value = excluded.asset_value, debt_value = excluded.debt_value, net_value = excluded.net_value,
      pnl = excluded.pnl, health_factor = excluded.health_factor, extra = excluded.extra,
      amount_kinds = excluded.amount_kinds, amount_tokens = excluded.amount_tokens, amounts = excluded.amounts,
      amount_values = excluded.amount_values, amount_token_info = excluded.amount_token_info, amount_extras = excluded.amount_extras,
      farming_base_apr = excluded.farming_base_apr, farming_rewards_apr = excluded.farming_rewards_apr,
      farming_total_apr = excluded.farming_total_apr, farming_total_apy = excluded.farming_total_apy,
      farming_rewards = excluded.farming_rewards, farming_extras = excluded.farming_extras
    where (t.fee, t.input_value, t.yield_collected_value, t.current_value, t.current_yield_value,
           t.asset_value, t.debt_value, t.net_value, t.pnl, t.health_factor, t.extra,
           t.amount_kinds, t.amount_tokens, t.amounts, t.amount_values, t.amount_token_info, t.amount_extras,
           t.farming_base_apr, t.farming_rewards_apr, t.farming_total_apr, t.farming_total_apy, t.farming_rewards, t.farming_extras)
      is distinct from
          (excluded.fee, excluded.input_value, excluded.yield_collected_value, excluded.current_value, excluded.current_yield_value,
           excluded.asset_value, excluded.debt_value, excluded.net_value, excluded.pnl, excluded.health_factor, excluded.extra,
           excluded.amount_kinds, excluded.amount_tokens, excluded.amounts, excluded.amount_values, excluded.amount_token_info, excluded.amount_extras,
           excluded.farming_base_apr, excluded.farming_rewards_apr, excluded.farming_total_apr, excluded.farming_total_apy,
           excluded.farming_rewards, excluded.farming_extras)
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
    on conflict (owner, snapshot_at) do update set complete = excluded.complete, position_count = excluded.position_count
    where (t.complete, t.position_count) is distinct from (excluded.complete, excluded.position_count)`;
  return result.count;
}
