import type { NftCollectionRow, NftHoldingSnapshotRow, NftTokenRow, NormalizedNftHoldings } from '../schema/rows.ts';
import { ensureMonthPartitions } from '../partitions.ts';
import type { Tx } from '../transaction.ts';
import { jsonText, lastByKey, newestWins, overwrite, writtenCounts } from './upsert.ts';

export interface NftWriteContext {
  owner: string;
  snapshotAt: Date;
  /** The chain the refresh covered ('ALL' or one chain): only tokens of that scope are released. */
  scopeChain: string;
  /** Every group was read (the default): tokens of the scope not returned are released, lost holdings dropped. */
  complete?: boolean;
}

const iso = (time: Date) => time.toISOString();
/** postgres.js sends an array of booleans as one boolean: booleans travel as text. */
const boolText = (value: boolean | null) => (value === null ? null : String(value));

const COLLECTION_UPDATE = newestWins(`chain, name, description, external_url, image_url, total_items, verified, scam,
  native_token_name, native_token_symbol, native_token_decimals, native_token_cmc_id, native_token_cmc_slug, native_token_cg_id, extra`);
const TOKEN_UPDATE = newestWins(
  'chain, contract_address, name, image_url, rank, rarity_score, royalty, price, cost, extra',
  {
    // Seen at or after the tick that released it: held again.
    released_at: 'case when excluded.last_seen_at >= t.released_at then null else t.released_at end',
  },
);
const HOLDING_UPDATE = overwrite('chain, token_count, floor_price, market_price, realized_pnl, unrealized_pnl, extra');
const REFRESH_UPDATE = overwrite('scope_chain, collection_count, token_count');

/**
 * Writes one owner's NFT holdings at one tick; writing it again changes nothing, a late older tick
 * never moves history back. Rows travel as one array per column (each statement prepared once),
 * and the statements are pipelined: two round trips.
 */
export async function writeNftHoldings(
  tx: Tx,
  normalized: NormalizedNftHoldings,
  ctx: NftWriteContext,
): Promise<Record<string, number>> {
  // Plans for these arrays' real sizes: a cached generic plan guesses 10 keys and, on stale
  // statistics, compared each of 50,000 tokens with 50,000 keys in turn (minutes, not a second).
  await tx.sql`set local plan_cache_mode = force_custom_plan`;
  await ensureMonthPartitions(tx, 'nft_holding_snapshots', [ctx.snapshotAt]);
  const scope = ctx.scopeChain.toUpperCase();
  const complete = ctx.complete ?? true;
  // An answer for one chain holds only that chain, whatever a collection leaves out.
  const scoped = <T extends { chain: string | null }>(row: T): T => ({
    ...row,
    chain: row.chain ?? (scope === 'ALL' ? null : scope),
  });
  const tokens = normalized.tokens.map(scoped);
  const collectionIds = normalized.holdings.map((holding) => holding.collectionId);
  const [collections, , holdings, upserted, released, refreshes] = await Promise.all([
    upsertCollections(tx, normalized.collections.map(scoped)),
    complete ? deleteStaleHoldings(tx, ctx, scope, collectionIds) : undefined,
    upsertHoldings(tx, normalized.holdings.map(scoped)),
    upsertTokens(tx, tokens),
    complete ? releaseMissing(tx, ctx, scope, tokens) : 0,
    recordRefresh(tx, ctx, scope, normalized),
  ]);
  return writtenCounts({
    nft_collections: collections,
    nft_holding_snapshots: holdings,
    nft_tokens: upserted + released,
    nft_refreshes: refreshes,
  });
}

/**
 * Collections are shared: rows stored as they would be written are left out first (a no-op ON
 * CONFLICT still locks the row until the job commits), the rest go in key order.
 */
async function upsertCollections(tx: Tx, rows: NftCollectionRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const c = lastByKey(rows, (row) => row.collectionId);
  const result = await tx.sql`
    insert into nft_collections as t (
      collection_id, chain, name, description, external_url, image_url, total_items, verified, scam, native_token_name,
      native_token_symbol, native_token_decimals, native_token_cmc_id, native_token_cmc_slug, native_token_cg_id, extra, first_seen_at, last_seen_at)
    select i.*
    from unnest(
      ${c.map((r) => r.collectionId)}::text[], ${c.map((r) => r.chain)}::text[], ${c.map((r) => r.name)}::text[], ${c.map((r) => r.description)}::text[],
      ${c.map((r) => r.externalUrl)}::text[], ${c.map((r) => r.imageUrl)}::text[], ${c.map((r) => r.totalItems)}::bigint[], ${c.map((r) => boolText(r.verified))}::text[]::boolean[],
      ${c.map((r) => boolText(r.scam))}::text[]::boolean[], ${c.map((r) => r.nativeTokenName)}::text[], ${c.map((r) => r.nativeTokenSymbol)}::text[],
      ${c.map((r) => r.nativeTokenDecimals)}::int[], ${c.map((r) => r.nativeTokenCmcId)}::text[], ${c.map((r) => r.nativeTokenCmcSlug)}::text[],
      ${c.map((r) => r.nativeTokenCgId)}::text[], ${c.map((r) => jsonText(r.extra))}::text[]::jsonb[], ${c.map((r) => iso(r.firstSeenAt))}::timestamptz[],
      ${c.map((r) => iso(r.lastSeenAt))}::timestamptz[])
      as i(collection_id, chain, name, description, external_url, image_url, total_items, verified, scam, native_token_name,
           native_token_symbol, native_token_decimals, native_token_cmc_id, native_token_cmc_slug, native_token_cg_id, extra, first_seen_at, last_seen_at)
    where not exists (select 1 from nft_collections t where t.collection_id = i.collection_id and ${tx.sql.unsafe(COLLECTION_UPDATE.unchanged)})
    on conflict (collection_id) ${tx.sql.unsafe(COLLECTION_UPDATE.update)}`;
  return result.count;
}

/** A rewrite of a tick whose answer lost collections removes their holding rows of that tick. */
async function deleteStaleHoldings(tx: Tx, ctx: NftWriteContext, scope: string, returned: string[]): Promise<void> {
  await tx.sql`
    delete from nft_holding_snapshots
    where owner = ${ctx.owner} and snapshot_at = ${ctx.snapshotAt}
      and (${scope} = 'ALL' or upper(chain) = ${scope})
      and collection_id <> all(${returned}::text[])`;
}

async function upsertHoldings(tx: Tx, rows: NftHoldingSnapshotRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await tx.sql`
    insert into nft_holding_snapshots as t (owner, collection_id, snapshot_at, chain, token_count, floor_price, market_price, realized_pnl, unrealized_pnl, extra)
    select i.*
    from unnest(
      ${rows.map((r) => r.owner)}::text[], ${rows.map((r) => r.collectionId)}::text[], ${rows.map((r) => iso(r.snapshotAt))}::timestamptz[],
      ${rows.map((r) => r.chain)}::text[], ${rows.map((r) => r.tokenCount)}::int[], ${rows.map((r) => r.floorPrice)}::numeric[],
      ${rows.map((r) => r.marketPrice)}::numeric[], ${rows.map((r) => r.realizedPnl)}::numeric[], ${rows.map((r) => r.unrealizedPnl)}::numeric[],
      ${rows.map((r) => jsonText(r.extra))}::text[]::jsonb[])
      as i(owner, collection_id, snapshot_at, chain, token_count, floor_price, market_price, realized_pnl, unrealized_pnl, extra)
    on conflict (owner, collection_id, snapshot_at) ${tx.sql.unsafe(HOLDING_UPDATE)}`;
  return result.count;
}

async function upsertTokens(tx: Tx, rows: NftTokenRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await tx.sql`
    insert into nft_tokens as t (
      owner, collection_id, token_id, chain, contract_address, name, image_url, rank, rarity_score, royalty, price, cost, extra,
      first_seen_at, last_seen_at, released_at)
    select i.*
    from unnest(
      ${rows.map((r) => r.owner)}::text[], ${rows.map((r) => r.collectionId)}::text[], ${rows.map((r) => r.tokenId)}::text[],
      ${rows.map((r) => r.chain)}::text[], ${rows.map((r) => r.contractAddress)}::text[], ${rows.map((r) => r.name)}::text[],
      ${rows.map((r) => r.imageUrl)}::text[], ${rows.map((r) => r.rank)}::text[], ${rows.map((r) => r.rarityScore)}::numeric[],
      ${rows.map((r) => r.royalty)}::numeric[], ${rows.map((r) => r.price)}::numeric[], ${rows.map((r) => r.cost)}::numeric[],
      ${rows.map((r) => jsonText(r.extra))}::text[]::jsonb[], ${rows.map((r) => iso(r.firstSeenAt))}::timestamptz[],
      ${rows.map((r) => iso(r.lastSeenAt))}::timestamptz[], ${rows.map((r) => (r.releasedAt ? iso(r.releasedAt) : null))}::timestamptz[])
      as i(owner, collection_id, token_id, chain, contract_address, name, image_url, rank, rarity_score, royalty, price, cost, extra,
           first_seen_at, last_seen_at, released_at)
    on conflict (owner, collection_id, token_id) ${tx.sql.unsafe(TOKEN_UPDATE.update)}`;
  return result.count;
}

/** Releases the scope's tokens the refresh did not return, unless seen later (or released later: then now). */
async function releaseMissing(tx: Tx, ctx: NftWriteContext, scope: string, returned: NftTokenRow[]): Promise<number> {
  const result = await tx.sql`
    update nft_tokens t set released_at = ${ctx.snapshotAt}
    where t.owner = ${ctx.owner}
      and (${scope} = 'ALL' or upper(t.chain) = ${scope})
      and t.last_seen_at <= ${ctx.snapshotAt}
      and (t.released_at is null or t.released_at > ${ctx.snapshotAt})
      and not exists (
        select 1 from unnest(${returned.map((row) => row.collectionId)}::text[], ${returned.map((row) => row.tokenId)}::text[]) as k(collection_id, token_id)
        where k.collection_id = t.collection_id and k.token_id = t.token_id)`;
  return result.count;
}

async function recordRefresh(
  tx: Tx,
  ctx: NftWriteContext,
  scope: string,
  normalized: NormalizedNftHoldings,
): Promise<number> {
  const result = await tx.sql`
    insert into nft_refreshes as t (owner, snapshot_at, scope_chain, collection_count, token_count)
    values (${ctx.owner}, ${ctx.snapshotAt}, ${scope}, ${normalized.holdings.length}, ${normalized.tokens.length})
    on conflict (owner, snapshot_at) ${tx.sql.unsafe(REFRESH_UPDATE)}`;
  return result.count;
}
