import { and, eq, param, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { NftTokenRow, NormalizedNftHoldings } from '../../normalize/rows.js';
import { batchesFor, lastByKey } from '../batches.js';
import { ensureMonthPartitions } from '../partitions.js';
import { nftCollections, nftHoldingSnapshots, nftRefreshes, nftTokens } from '../schema/index.js';
import type { Tx } from '../transaction.js';
import { changes, excluded, newest, setOf } from '../upsert-sql.js';

export interface NftWriteContext {
  owner: string;
  snapshotAt: Date;
  /** The chain the refresh covered ('ALL' or one chain): only tokens of that scope are released. */
  scopeChain: string;
}

/** Collection columns that describe it: taken from the newest answer only. */
const COLLECTION_FIELDS = [
  'chain', 'name', 'description', 'externalUrl', 'imageUrl', 'totalItems', 'verified', 'scam', 'nativeTokenName',
  'nativeTokenSymbol', 'nativeTokenDecimals', 'nativeTokenCmcId', 'nativeTokenCmcSlug', 'nativeTokenCgId', 'extra',
] as const;
/** Token columns that describe it: taken from the newest answer only. */
const TOKEN_FIELDS = ['chain', 'contractAddress', 'name', 'imageUrl', 'rank', 'rarityScore', 'royalty', 'price', 'cost', 'extra'] as const;
const HOLDING_FIELDS = ['chain', 'tokenCount', 'floorPrice', 'marketPrice', 'realizedPnl', 'unrealizedPnl', 'extra'] as const;

/**
 * Writes one owner's NFT holdings at one tick: collections, one holding snapshot per collection,
 * the tokens held (released when a refresh covering their chain no longer returns them, held again
 * when they come back), and the refresh itself. Keyed by the tick: writing the same answer again
 * changes nothing; an older tick arriving late never moves history back.
 */
export async function writeNftHoldings(tx: Tx, normalized: NormalizedNftHoldings, ctx: NftWriteContext): Promise<Record<string, number>> {
  await ensureMonthPartitions(tx, ['nft_holding_snapshots'], [ctx.snapshotAt]);
  const scope = ctx.scopeChain.toUpperCase();
  // An answer for one chain holds only that chain, whatever a collection leaves out.
  const scoped = <T extends { chain: string | null }>(row: T): T => ({ ...row, chain: row.chain ?? (scope === 'ALL' ? null : scope) });
  const written: Record<string, number> = {};
  const count = (table: string, n: number) => {
    if (n > 0) written[table] = (written[table] ?? 0) + n;
  };
  const tokens = normalized.tokens.map(scoped);
  count('nft_collections', await upsertCollections(tx, normalized.collections.map(scoped)));
  await deleteStaleHoldings(tx, ctx, scope, normalized.holdings.map((holding) => holding.collectionId));
  count('nft_holding_snapshots', await upsertHoldings(tx, normalized.holdings.map(scoped)));
  count('nft_tokens', await upsertTokens(tx, tokens));
  count('nft_tokens', await releaseMissing(tx, ctx, scope, tokens));
  count('nft_refreshes', await recordRefresh(tx, ctx, scope, normalized));
  return written;
}

async function upsertCollections(tx: Tx, rows: NormalizedNftHoldings['collections']): Promise<number> {
  const c = nftCollections;
  const newer = sql`excluded.last_seen_at >= ${c.lastSeenAt}`;
  const assignments: [AnyPgColumn, SQL][] = [
    ...COLLECTION_FIELDS.map((field): [AnyPgColumn, SQL] => [c[field], newest(c[field], newer)]),
    [c.firstSeenAt, sql`least(${c.firstSeenAt}, excluded.first_seen_at)`],
    [c.lastSeenAt, sql`greatest(${c.lastSeenAt}, excluded.last_seen_at)`],
  ];
  let written = 0;
  for (const batch of batchesFor(lastByKey(rows, (row) => row.collectionId), 18)) {
    const result = await tx.db
      .insert(c)
      .values(batch)
      .onConflictDoUpdate({ target: c.collectionId, set: setOf(c, assignments), setWhere: changes(assignments) })
      .returning({ collectionId: c.collectionId });
    written += result.length;
  }
  return written;
}

/** A rewrite of a tick whose answer lost collections removes their holding rows of that tick. */
async function deleteStaleHoldings(tx: Tx, ctx: NftWriteContext, scope: string, returned: string[]): Promise<void> {
  const h = nftHoldingSnapshots;
  await tx.db.delete(h).where(and(
    eq(h.owner, ctx.owner),
    eq(h.snapshotAt, ctx.snapshotAt),
    scope === 'ALL' ? undefined : sql`upper(${h.chain}) = ${scope}`,
    returned.length > 0 ? sql`${h.collectionId} <> all(${param(returned)}::text[])` : undefined,
  ));
}

async function upsertHoldings(tx: Tx, rows: NormalizedNftHoldings['holdings']): Promise<number> {
  const h = nftHoldingSnapshots;
  const assignments = HOLDING_FIELDS.map((field): [AnyPgColumn, SQL] => [h[field], excluded(h[field])]);
  let written = 0;
  for (const batch of batchesFor(rows, 10)) {
    const result = await tx.db
      .insert(h)
      .values(batch)
      .onConflictDoUpdate({ target: [h.owner, h.collectionId, h.snapshotAt], set: setOf(h, assignments), setWhere: changes(assignments) })
      .returning({ collectionId: h.collectionId });
    written += result.length;
  }
  return written;
}

async function upsertTokens(tx: Tx, rows: NftTokenRow[]): Promise<number> {
  const t = nftTokens;
  const newer = sql`excluded.last_seen_at >= ${t.lastSeenAt}`;
  const assignments: [AnyPgColumn, SQL][] = [
    ...TOKEN_FIELDS.map((field): [AnyPgColumn, SQL] => [t[field], newest(t[field], newer)]),
    [t.firstSeenAt, sql`least(${t.firstSeenAt}, excluded.first_seen_at)`],
    [t.lastSeenAt, sql`greatest(${t.lastSeenAt}, excluded.last_seen_at)`],
    // Seen at or after the tick that released it: held again.
    [t.releasedAt, sql`case when excluded.last_seen_at >= ${t.releasedAt} then null else ${t.releasedAt} end`],
  ];
  let written = 0;
  for (const batch of batchesFor(rows, 16)) {
    const result = await tx.db
      .insert(t)
      .values(batch)
      .onConflictDoUpdate({ target: [t.owner, t.collectionId, t.tokenId], set: setOf(t, assignments), setWhere: changes(assignments) })
      .returning({ tokenId: t.tokenId });
    written += result.length;
  }
  return written;
}

/**
 * Releases the owner's tokens within the refresh's scope that it did not return, unless seen at a
 * later tick. A token already released at a later tick is released at this earlier one instead.
 */
async function releaseMissing(tx: Tx, ctx: NftWriteContext, scope: string, returned: NftTokenRow[]): Promise<number> {
  const t = nftTokens;
  const result = await tx.db
    .update(t)
    .set({ releasedAt: ctx.snapshotAt })
    .where(and(
      eq(t.owner, ctx.owner),
      scope === 'ALL' ? undefined : sql`upper(${t.chain}) = ${scope}`,
      sql`${t.lastSeenAt} <= ${ctx.snapshotAt}`,
      sql`(${t.releasedAt} is null or ${t.releasedAt} > ${ctx.snapshotAt})`,
      sql`not exists (
        select 1 from unnest(${param(returned.map((row) => row.collectionId))}::text[], ${param(returned.map((row) => row.tokenId))}::text[]) as k(collection_id, token_id)
        where k.collection_id = ${t.collectionId} and k.token_id = ${t.tokenId})`,
    ))
    .returning({ tokenId: t.tokenId });
  return result.length;
}

async function recordRefresh(tx: Tx, ctx: NftWriteContext, scope: string, normalized: NormalizedNftHoldings): Promise<number> {
  const r = nftRefreshes;
  const assignments: [AnyPgColumn, SQL][] = [r.scopeChain, r.collectionCount, r.tokenCount].map((column) => [column, excluded(column)]);
  const result = await tx.db
    .insert(r)
    .values({ owner: ctx.owner, snapshotAt: ctx.snapshotAt, scopeChain: scope, collectionCount: normalized.holdings.length, tokenCount: normalized.tokens.length })
    .onConflictDoUpdate({ target: [r.owner, r.snapshotAt], set: setOf(r, assignments), setWhere: changes(assignments) })
    .returning({ owner: r.owner });
  return result.length;
}
