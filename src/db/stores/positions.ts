import { and, eq, inArray, notInArray, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { NormalizedPositions, PositionAmountRow, PositionFarmingRow } from '../../normalize/rows.js';
import { batchesFor } from '../batches.js';
import { ensureMonthPartitions } from '../partitions.js';
import { positionAmounts, positionFarming, positionRefreshes, positions, positionSnapshots } from '../schema/index.js';
import type { Tx } from '../transaction.js';
import { changes, excluded, newest, setOf } from '../upsert-sql.js';
import { writeProtocols } from './protocols.js';

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
 */
export async function writePositions(tx: Tx, normalized: NormalizedPositions, ctx: PositionsWriteContext): Promise<Record<string, number>> {
  await ensureMonthPartitions(tx, ['position_snapshots', 'position_amounts', 'position_farming'], [ctx.snapshotAt]);
  const written: Record<string, number> = { ...(await writeProtocols(tx, normalized.protocols)) };
  const count = (table: string, n: number) => {
    if (n > 0) written[table] = (written[table] ?? 0) + n;
  };
  const ids = normalized.positions.map((position) => position.positionId);
  count('positions', await upsertPositions(tx, normalized));
  if (ctx.complete) count('positions', await closeMissing(tx, ctx, ids));
  if (ctx.complete) await deleteStaleSnapshots(tx, ctx, ids);
  count('position_snapshots', await upsertSnapshots(tx, normalized));
  const snapshotIds = await snapshotIdsOf(tx, ctx, ids);
  count('position_amounts', await replaceAmounts(tx, normalized.amounts, snapshotIds, ctx.snapshotAt));
  count('position_farming', await replaceFarming(tx, normalized.farming, snapshotIds, ctx.snapshotAt));
  count('position_refreshes', await recordRefresh(tx, ctx, ids.length));
  return written;
}

async function upsertPositions(tx: Tx, normalized: NormalizedPositions): Promise<number> {
  const p = positions;
  const newer = sql`excluded.last_seen_at >= ${p.lastSeenAt}`;
  const assignments: [AnyPgColumn, SQL][] = [
    [p.chain, newest(p.chain, newer)],
    [p.type, newest(p.type, newer)],
    [p.protocolId, sql`case when ${newer} then coalesce(excluded.protocol_id, ${p.protocolId}) else ${p.protocolId} end`],
    [p.firstSeenAt, sql`least(${p.firstSeenAt}, excluded.first_seen_at)`],
    [p.lastSeenAt, sql`greatest(${p.lastSeenAt}, excluded.last_seen_at)`],
    // Seen at or after the tick that closed it: open again.
    [p.closedAt, sql`case when excluded.last_seen_at >= ${p.closedAt} then null else ${p.closedAt} end`],
  ];
  let written = 0;
  for (const batch of batchesFor(normalized.positions, 8)) {
    const rows = await tx.db
      .insert(p)
      .values(batch)
      .onConflictDoUpdate({ target: [p.owner, p.positionId], set: setOf(p, assignments), setWhere: changes(assignments) })
      .returning({ positionId: p.positionId });
    written += rows.length;
  }
  return written;
}

/**
 * Closes the owner's positions this complete refresh did not return, unless they were seen at a
 * later tick. A position already closed at a later tick is closed at this earlier one instead.
 */
async function closeMissing(tx: Tx, ctx: PositionsWriteContext, returned: string[]): Promise<number> {
  const rows = await tx.db
    .update(positions)
    .set({ closedAt: ctx.snapshotAt })
    .where(and(
      eq(positions.owner, ctx.owner),
      returned.length > 0 ? notInArray(positions.positionId, returned) : undefined,
      sql`${positions.lastSeenAt} <= ${ctx.snapshotAt}`,
      sql`(${positions.closedAt} is null or ${positions.closedAt} > ${ctx.snapshotAt})`,
    ))
    .returning({ positionId: positions.positionId });
  return rows.length;
}

/** A rewrite of a tick whose answer lost positions removes their snapshots of that tick. */
async function deleteStaleSnapshots(tx: Tx, ctx: PositionsWriteContext, returned: string[]): Promise<void> {
  await tx.db.delete(positionSnapshots).where(and(
    eq(positionSnapshots.owner, ctx.owner),
    eq(positionSnapshots.snapshotAt, ctx.snapshotAt),
    returned.length > 0 ? notInArray(positionSnapshots.positionId, returned) : undefined,
  ));
}

async function upsertSnapshots(tx: Tx, normalized: NormalizedPositions): Promise<number> {
  const s = positionSnapshots;
  const assignments = [s.fee, s.inputValue, s.yieldCollectedValue, s.currentValue, s.currentYieldValue, s.extra]
    .map((column): [AnyPgColumn, SQL] => [column, excluded(column)]);
  let written = 0;
  for (const batch of batchesFor(normalized.snapshots, 10)) {
    const rows = await tx.db
      .insert(s)
      .values(batch)
      .onConflictDoUpdate({ target: [s.owner, s.positionId, s.snapshotAt], set: setOf(s, assignments), setWhere: changes(assignments) })
      .returning({ id: s.id });
    written += rows.length;
  }
  return written;
}

async function snapshotIdsOf(tx: Tx, ctx: PositionsWriteContext, positionIds: string[]): Promise<Map<string, number>> {
  if (positionIds.length === 0) return new Map();
  const rows = await tx.db
    .select({ id: positionSnapshots.id, positionId: positionSnapshots.positionId })
    .from(positionSnapshots)
    .where(and(eq(positionSnapshots.owner, ctx.owner), eq(positionSnapshots.snapshotAt, ctx.snapshotAt), inArray(positionSnapshots.positionId, positionIds)));
  return new Map(rows.map((row) => [row.positionId, row.id]));
}

/**
 * Upserts the amount rows of the snapshots (only changed rows are touched), then deletes the rows a
 * rewrite no longer has (an index past the new length of its list).
 */
async function replaceAmounts(tx: Tx, amounts: PositionAmountRow[], snapshotIds: Map<string, number>, snapshotAt: Date): Promise<number> {
  const a = positionAmounts;
  const assignments = [a.token, a.tokenSymbol, a.amount, a.value, a.tokenInfo, a.extra].map((column): [AnyPgColumn, SQL] => [column, excluded(column)]);
  const rows = amounts.map(({ positionId, ...row }) => ({ ...row, snapshotId: snapshotIds.get(positionId)!, snapshotAt }));
  let written = 0;
  for (const batch of batchesFor(rows, 10)) {
    const result = await tx.db
      .insert(a)
      .values(batch)
      .onConflictDoUpdate({
        target: [a.snapshotId, a.snapshotAt, a.kind, a.idx],
        set: setOf(a, assignments),
        setWhere: changes(assignments),
      })
      .returning({ idx: a.idx });
    written += result.length;
  }
  const lengths = [...snapshotIds].flatMap(([positionId, snapshotId]) => AMOUNT_KINDS.map((kind) => ({
    snapshotId,
    kind,
    length: amounts.filter((row) => row.positionId === positionId && row.kind === kind).length,
  })));
  await deleteBeyond(tx, 'position_amounts', snapshotAt, lengths);
  return written;
}

async function replaceFarming(tx: Tx, farming: PositionFarmingRow[], snapshotIds: Map<string, number>, snapshotAt: Date): Promise<number> {
  const f = positionFarming;
  const assignments = [f.baseApr, f.rewardsApr, f.totalApr, f.totalApy, f.rewards, f.extra].map((column): [AnyPgColumn, SQL] => [column, excluded(column)]);
  const rows = farming.map(({ positionId, ...row }) => ({ ...row, snapshotId: snapshotIds.get(positionId)!, snapshotAt }));
  let written = 0;
  for (const batch of batchesFor(rows, 9)) {
    const result = await tx.db
      .insert(f)
      .values(batch)
      .onConflictDoUpdate({
        target: [f.snapshotId, f.snapshotAt, f.idx],
        set: setOf(f, assignments),
        setWhere: changes(assignments),
      })
      .returning({ idx: f.idx });
    written += result.length;
  }
  const lengths = [...snapshotIds].map(([positionId, snapshotId]) => ({
    snapshotId,
    kind: null,
    length: farming.filter((row) => row.positionId === positionId).length,
  }));
  await deleteBeyond(tx, 'position_farming', snapshotAt, lengths);
  return written;
}

/** Deletes child rows whose idx is past the new length of their list (per snapshot and kind). */
async function deleteBeyond(
  tx: Tx,
  table: 'position_amounts' | 'position_farming',
  snapshotAt: Date,
  lengths: { snapshotId: number; kind: string | null; length: number }[],
): Promise<void> {
  if (lengths.length === 0) return;
  const kindMatch = table === 'position_amounts' ? tx.sql`and c.kind::text = l.kind` : tx.sql``;
  await tx.sql`
    delete from ${tx.sql(table)} c
    using unnest(${lengths.map((l) => l.snapshotId)}::bigint[], ${lengths.map((l) => l.kind)}::text[], ${lengths.map((l) => l.length)}::int[]) as l(snapshot_id, kind, length)
    where c.snapshot_at = ${snapshotAt} and c.snapshot_id = l.snapshot_id ${kindMatch} and c.idx >= l.length`;
}

async function recordRefresh(tx: Tx, ctx: PositionsWriteContext, positionCount: number): Promise<number> {
  const r = positionRefreshes;
  const assignments = [r.complete, r.positionCount].map((column): [AnyPgColumn, SQL] => [column, excluded(column)]);
  const rows = await tx.db
    .insert(r)
    .values({ owner: ctx.owner, snapshotAt: ctx.snapshotAt, complete: ctx.complete, positionCount })
    .onConflictDoUpdate({ target: [r.owner, r.snapshotAt], set: setOf(r, assignments), setWhere: changes(assignments) })
    .returning({ owner: r.owner });
  return rows.length;
}
