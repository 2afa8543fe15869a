import type { NormalizedPositions, PositionAmountRow, PositionFarmingRow, PositionRow, PositionSnapshotRow } from '../../normalize/rows.js';
import { jsonText } from '../json-text.js';
import { ensureMonthPartitions } from '../partitions.js';
import type { Tx } from '../transaction.js';
import { upsertProtocols } from './protocols.js';

export interface PositionsWriteContext {
  owner: string;
  snapshotAt: Date;
  /** An unfiltered refresh: the owner's positions it did not return are closed at snapshotAt. */
  complete: boolean;
}

const AMOUNT_KINDS = ['input', 'yield_collected', 'current_token', 'current_yield'] as const;

/**
 * Writes one owner's positions at one tick: protocols, positions (open/close history), one snapshot
 * per position with its amounts and farming entries, and the refresh itself. Keyed by the tick:
 * writing the same answer again changes nothing. History follows the newest tick only: an older
 * tick arriving late never moves last_seen_at back, nor closes or reopens a position.
 *
 * Each statement takes its rows as one array per column (unnest): its text never changes, so it is
 * prepared once per connection, and the statements that do not need an earlier one's result are
 * sent together (postgres.js pipelines them; Postgres runs them in order). Two round trips per job.
 */
export async function writePositions(tx: Tx, normalized: NormalizedPositions, ctx: PositionsWriteContext): Promise<Record<string, number>> {
  await ensureMonthPartitions(tx, ['position_snapshots', 'position_amounts', 'position_farming'], [ctx.snapshotAt]);
  const written: Record<string, number> = {};
  const count = (table: string, n: number) => {
    if (n > 0) written[table] = (written[table] ?? 0) + n;
  };
  const ids = normalized.positions.map((position) => position.positionId);
  const [protocols, upserted, closed, , snapshots] = await Promise.all([
    upsertProtocols(tx, normalized.protocols),
    upsertPositions(tx, normalized.positions),
    ctx.complete ? closeMissing(tx, ctx, ids) : undefined,
    ctx.complete ? deleteStaleSnapshots(tx, ctx, ids) : undefined,
    upsertSnapshots(tx, normalized.snapshots, ctx, ids),
  ]);
  count('protocols', protocols);
  count('positions', upserted);
  count('positions', closed ?? 0);
  count('position_snapshots', snapshots.written);
  const [amounts, farming, refreshes] = await Promise.all([
    replaceAmounts(tx, normalized.amounts, snapshots, ctx.snapshotAt),
    replaceFarming(tx, normalized.farming, snapshots, ctx.snapshotAt),
    recordRefresh(tx, ctx, ids.length),
  ]);
  count('position_amounts', amounts);
  count('position_farming', farming);
  count('position_refreshes', refreshes);
  return written;
}

/** `excluded` wins only when its last_seen_at is at least the stored one (a late old tick never does). */
async function upsertPositions(tx: Tx, rows: PositionRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await tx.sql`
    insert into positions as t (owner, position_id, chain, type, protocol_id, first_seen_at, last_seen_at, closed_at)
    select * from unnest(
      ${rows.map((r) => r.owner)}::text[], ${rows.map((r) => r.positionId)}::text[], ${rows.map((r) => r.chain)}::text[],
      ${rows.map((r) => r.type)}::text[], ${rows.map((r) => r.protocolId)}::text[], ${rows.map((r) => r.firstSeenAt.toISOString())}::timestamptz[],
      ${rows.map((r) => r.lastSeenAt.toISOString())}::timestamptz[], ${rows.map((r) => r.closedAt?.toISOString() ?? null)}::timestamptz[])
    on conflict (owner, position_id) do update set
      chain = case when excluded.last_seen_at >= t.last_seen_at then excluded.chain else t.chain end,
      type = case when excluded.last_seen_at >= t.last_seen_at then excluded.type else t.type end,
      protocol_id = case when excluded.last_seen_at >= t.last_seen_at then coalesce(excluded.protocol_id, t.protocol_id) else t.protocol_id end,
      first_seen_at = least(t.first_seen_at, excluded.first_seen_at),
      last_seen_at = greatest(t.last_seen_at, excluded.last_seen_at),
      -- Seen at or after the tick that closed it: open again.
      closed_at = case when excluded.last_seen_at >= t.closed_at then null else t.closed_at end
    where (t.chain, t.type, t.protocol_id, t.first_seen_at, t.last_seen_at, t.closed_at) is distinct from (
      case when excluded.last_seen_at >= t.last_seen_at then excluded.chain else t.chain end,
      case when excluded.last_seen_at >= t.last_seen_at then excluded.type else t.type end,
      case when excluded.last_seen_at >= t.last_seen_at then coalesce(excluded.protocol_id, t.protocol_id) else t.protocol_id end,
      least(t.first_seen_at, excluded.first_seen_at),
      greatest(t.last_seen_at, excluded.last_seen_at),
      case when excluded.last_seen_at >= t.closed_at then null else t.closed_at end)`;
  return result.count;
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

/** A rewrite of a tick whose answer lost positions removes their snapshots of that tick. */
async function deleteStaleSnapshots(tx: Tx, ctx: PositionsWriteContext, returned: string[]): Promise<void> {
  await tx.sql`
    delete from position_snapshots
    where owner = ${ctx.owner} and snapshot_at = ${ctx.snapshotAt} and position_id <> all(${returned}::text[])`;
}

interface SnapshotIds {
  written: number;
  /** The id of every snapshot of the tick, by position id. */
  ids: Map<string, number>;
  /** The position ids whose snapshot was stored before this write (a rewritten tick): only they can have stale children. */
  existed: Set<string>;
}

/**
 * Upserts the snapshots (a row is touched only when a value moves) and returns how many were
 * written together with the id of every snapshot of the tick: those just written come from
 * RETURNING, the unchanged ones from the tick's snapshots as stored before the statement (which
 * also tell a rewrite from a first write).
 */
async function upsertSnapshots(tx: Tx, rows: PositionSnapshotRow[], ctx: PositionsWriteContext, positionIds: string[]): Promise<SnapshotIds> {
  if (rows.length === 0) return { written: 0, ids: new Map(), existed: new Set() };
  const found = await tx.sql<{ id: string; positionId: string; written: boolean; existed: boolean }[]>`
    with stored as (
      select s.id, s.position_id from position_snapshots s
      where s.owner = ${ctx.owner} and s.snapshot_at = ${ctx.snapshotAt} and s.position_id = any(${positionIds}::text[])
    ), written as (
      insert into position_snapshots as t (owner, position_id, snapshot_at, fee, input_value, yield_collected_value, current_value, current_yield_value, extra)
      select i.owner, i.position_id, i.snapshot_at, i.fee, i.input_value, i.yield_collected_value, i.current_value, i.current_yield_value, i.extra::jsonb
      from unnest(
        ${rows.map((r) => r.owner)}::text[], ${rows.map((r) => r.positionId)}::text[], ${rows.map((r) => r.snapshotAt.toISOString())}::timestamptz[],
        ${rows.map((r) => r.fee)}::numeric[], ${rows.map((r) => r.inputValue)}::numeric[], ${rows.map((r) => r.yieldCollectedValue)}::numeric[],
        ${rows.map((r) => r.currentValue)}::numeric[], ${rows.map((r) => r.currentYieldValue)}::numeric[], ${rows.map((r) => jsonText(r.extra))}::text[])
        as i(owner, position_id, snapshot_at, fee, input_value, yield_collected_value, current_value, current_yield_value, extra)
      on conflict (owner, position_id, snapshot_at) do update set
        fee = excluded.fee, input_value = excluded.input_value, yield_collected_value = excluded.yield_collected_value,
        current_value = excluded.current_value, current_yield_value = excluded.current_yield_value, extra = excluded.extra
      where (t.fee, t.input_value, t.yield_collected_value, t.current_value, t.current_yield_value, t.extra) is distinct from
            (excluded.fee, excluded.input_value, excluded.yield_collected_value, excluded.current_value, excluded.current_yield_value, excluded.extra)
      returning id, position_id
    )
    select w.id::text, w.position_id as "positionId", true as written, exists (select 1 from stored b where b.position_id = w.position_id) as existed
    from written w
    union all
    select b.id::text, b.position_id, false, true from stored b where b.position_id not in (select position_id from written)`;
  return {
    written: found.filter((row) => row.written).length,
    ids: new Map(found.map((row) => [row.positionId, Number(row.id)])),
    existed: new Set(found.filter((row) => row.existed).map((row) => row.positionId)),
  };
}

/**
 * Upserts the amount rows of the snapshots (only changed rows are touched), then, for snapshots
 * stored before this write (a rewritten tick), deletes the rows the rewrite no longer has (an index
 * past the new length of its list). A tick written for the first time has nothing to delete and
 * sends no delete: on a partition whose cached plan still sees it empty, that delete would scan it.
 */
async function replaceAmounts(tx: Tx, amounts: PositionAmountRow[], snapshots: SnapshotIds, snapshotAt: Date): Promise<number> {
  const { ids } = snapshots;
  const counts = new Map<string, number>();
  for (const row of amounts) counts.set(`${row.positionId}\u0000${row.kind}`, (counts.get(`${row.positionId}\u0000${row.kind}`) ?? 0) + 1);
  const lists = [...snapshots.existed].flatMap((positionId) =>
    AMOUNT_KINDS.map((kind) => ({ snapshotId: ids.get(positionId)!, kind, length: counts.get(`${positionId}\u0000${kind}`) ?? 0 })));
  const [written] = await Promise.all([
    amounts.length === 0 ? 0 : tx.sql`
      insert into position_amounts as t (snapshot_id, snapshot_at, kind, idx, token, token_symbol, amount, value, token_info, extra)
      select i.snapshot_id, ${snapshotAt}::timestamptz, i.kind::position_amount_kind, i.idx, i.token, i.token_symbol, i.amount, i.value, i.token_info::jsonb, i.extra::jsonb
      from unnest(
        ${amounts.map((r) => ids.get(r.positionId)!)}::bigint[], ${amounts.map((r) => r.kind)}::text[], ${amounts.map((r) => r.idx)}::int[],
        ${amounts.map((r) => r.token)}::text[], ${amounts.map((r) => r.tokenSymbol)}::text[], ${amounts.map((r) => r.amount)}::numeric[],
        ${amounts.map((r) => r.value)}::numeric[], ${amounts.map((r) => jsonText(r.tokenInfo))}::text[], ${amounts.map((r) => jsonText(r.extra))}::text[])
        as i(snapshot_id, kind, idx, token, token_symbol, amount, value, token_info, extra)
      on conflict (snapshot_id, snapshot_at, kind, idx) do update set
        token = excluded.token, token_symbol = excluded.token_symbol, amount = excluded.amount, value = excluded.value,
        token_info = excluded.token_info, extra = excluded.extra
      where (t.token, t.token_symbol, t.amount, t.value, t.token_info, t.extra) is distinct from
            (excluded.token, excluded.token_symbol, excluded.amount, excluded.value, excluded.token_info, excluded.extra)`.then((r) => r.count),
    lists.length === 0 ? undefined : tx.sql`
      delete from position_amounts c
      using unnest(${lists.map((l) => l.snapshotId)}::bigint[], ${lists.map((l) => l.kind)}::text[], ${lists.map((l) => l.length)}::int[]) as l(snapshot_id, kind, length)
      where c.snapshot_at = ${snapshotAt} and c.snapshot_id = l.snapshot_id and c.kind::text = l.kind and c.idx >= l.length`,
  ]);
  return written;
}

async function replaceFarming(tx: Tx, farming: PositionFarmingRow[], snapshots: SnapshotIds, snapshotAt: Date): Promise<number> {
  const { ids } = snapshots;
  const counts = new Map<string, number>();
  for (const row of farming) counts.set(row.positionId, (counts.get(row.positionId) ?? 0) + 1);
  const lists = [...snapshots.existed].map((positionId) => ({ snapshotId: ids.get(positionId)!, length: counts.get(positionId) ?? 0 }));
  const [written] = await Promise.all([
    farming.length === 0 ? 0 : tx.sql`
      insert into position_farming as t (snapshot_id, snapshot_at, idx, base_apr, rewards_apr, total_apr, total_apy, rewards, extra)
      select i.snapshot_id, ${snapshotAt}::timestamptz, i.idx, i.base_apr, i.rewards_apr, i.total_apr, i.total_apy, i.rewards::jsonb, i.extra::jsonb
      from unnest(
        ${farming.map((r) => ids.get(r.positionId)!)}::bigint[], ${farming.map((r) => r.idx)}::int[], ${farming.map((r) => r.baseApr)}::numeric[],
        ${farming.map((r) => r.rewardsApr)}::numeric[], ${farming.map((r) => r.totalApr)}::numeric[], ${farming.map((r) => r.totalApy)}::numeric[],
        ${farming.map((r) => jsonText(r.rewards))}::text[], ${farming.map((r) => jsonText(r.extra))}::text[])
        as i(snapshot_id, idx, base_apr, rewards_apr, total_apr, total_apy, rewards, extra)
      on conflict (snapshot_id, snapshot_at, idx) do update set
        base_apr = excluded.base_apr, rewards_apr = excluded.rewards_apr, total_apr = excluded.total_apr,
        total_apy = excluded.total_apy, rewards = excluded.rewards, extra = excluded.extra
      where (t.base_apr, t.rewards_apr, t.total_apr, t.total_apy, t.rewards, t.extra) is distinct from
            (excluded.base_apr, excluded.rewards_apr, excluded.total_apr, excluded.total_apy, excluded.rewards, excluded.extra)`.then((r) => r.count),
    lists.length === 0 ? undefined : tx.sql`
      delete from position_farming c
      using unnest(${lists.map((l) => l.snapshotId)}::bigint[], ${lists.map((l) => l.length)}::int[]) as l(snapshot_id, length)
      where c.snapshot_at = ${snapshotAt} and c.snapshot_id = l.snapshot_id and c.idx >= l.length`,
  ]);
  return written;
}

async function recordRefresh(tx: Tx, ctx: PositionsWriteContext, positionCount: number): Promise<number> {
  const result = await tx.sql`
    insert into position_refreshes as t (owner, snapshot_at, complete, position_count)
    values (${ctx.owner}, ${ctx.snapshotAt}, ${ctx.complete}, ${positionCount})
    on conflict (owner, snapshot_at) do update set complete = excluded.complete, position_count = excluded.position_count
    where (t.complete, t.position_count) is distinct from (excluded.complete, excluded.position_count)`;
  return result.count;
}

