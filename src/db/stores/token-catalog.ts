import type { TokenRow } from '../schema/rows.ts';
import type { TransactionSql } from '../client.ts';
import { poolCache } from '../pool-cache.ts';
import type { Tx } from '../transaction.ts';

/** What this process knows is committed about a token (per pool): enough to skip writing it again. */
interface KnownToken {
  id: number;
  symbol: string | null;
  decimals: number | null;
  firstSeenAt: number;
  unpricedSeenAt: number | null;
}

interface CatalogRow {
  coinType: string;
  id: number;
  symbol: string | null;
  decimals: number | null;
  firstSeenAt: Date;
  unpricedSeenAt: Date | null;
  changed: boolean;
}

const knownTokens = poolCache(() => new Map<string, KnownToken>());

/**
 * Records what a price answer says about its tokens in token_catalog and returns their ids. New
 * tokens are inserted (drawing identity values only for them); a known token is written only when
 * something moves: a symbol or decimals given and different, an earlier first_seen_at, a later answer
 * without a price. Tokens this process knows to be up to date cost no statement at all, so storing
 * prices of known tokens writes nothing here.
 */
export async function recordTokens(tx: Tx, tokens: TokenRow[]): Promise<{ ids: Map<string, number>; written: number }> {
  const known = knownTokens(tx.database.sql);
  const ids = new Map<string, number>();
  const pending: TokenRow[] = [];
  for (const token of tokens) {
    const cached = known.get(token.coinType);
    if (cached && !moves(cached, token)) ids.set(token.coinType, cached.id);
    else pending.push(token);
  }
  if (pending.length === 0) return { ids, written: 0 };
  const rows = await writeCatalog(tx.sql, pending);
  const missing = pending.filter((token) => !rows.some((row) => row.coinType === token.coinType));
  // Inserted meanwhile by a transaction this statement's snapshot predates (its insert waited for
  // that commit, then did nothing): written again, so that what this answer moves (an earlier
  // first_seen_at) is not lost; the new statement sees the row.
  if (missing.length > 0) rows.push(...(await writeCatalog(tx.sql, missing)));
  for (const row of rows) {
    ids.set(row.coinType, row.id);
    const state: KnownToken = {
      id: row.id,
      symbol: row.symbol,
      decimals: row.decimals,
      firstSeenAt: row.firstSeenAt.getTime(),
      unpricedSeenAt: row.unpricedSeenAt?.getTime() ?? null,
    };
    tx.afterCommit(() => known.set(row.coinType, state));
  }
  return { ids, written: rows.filter((row) => row.changed).length };
}

/** The time of the token's latest entry without a price, if the answer had one. */
function unpricedSeenAt(token: TokenRow): Date | null {
  return token.lastPriceTime === null || token.lastSeenAt > token.lastPriceTime ? token.lastSeenAt : null;
}

function moves(known: KnownToken, token: TokenRow): boolean {
  const unpriced = unpricedSeenAt(token);
  return (
    (token.symbol !== null && token.symbol !== known.symbol) ||
    (token.decimals !== null && token.decimals !== known.decimals) ||
    token.firstSeenAt.getTime() < known.firstSeenAt ||
    (unpriced !== null && (known.unpricedSeenAt === null || unpriced.getTime() > known.unpricedSeenAt))
  );
}

/** Whether incoming row i moves stored row c (the SQL twin of moves above). */
function movesSql(sql: TransactionSql) {
  return sql`(c.symbol, c.decimals, c.first_seen_at, c.unpriced_seen_at) is distinct from
    (coalesce(i.symbol, c.symbol), coalesce(i.decimals, c.decimals), least(c.first_seen_at, i.first_seen_at),
     greatest(c.unpriced_seen_at, i.unpriced_seen_at))`;
}

/**
 * One statement: insert the new tokens, update the moved ones, and return every token asked for.
 * Both take their row locks in coin type order, so that concurrent writers of overlapping token
 * sets (a backfill's jobs all move first_seen_at of the same tokens) queue instead of deadlocking.
 */
async function writeCatalog(sql: TransactionSql, tokens: TokenRow[]): Promise<CatalogRow[]> {
  const incoming = sql`unnest(
      ${tokens.map((t) => t.coinType)}::text[], ${tokens.map((t) => t.symbol)}::text[], ${tokens.map((t) => t.decimals)}::int[],
      ${tokens.map((t) => t.firstSeenAt.toISOString())}::timestamptz[], ${tokens.map((t) => unpricedSeenAt(t)?.toISOString() ?? null)}::timestamptz[]
    ) as i(coin_type, symbol, decimals, first_seen_at, unpriced_seen_at)`;
  return sql<CatalogRow[]>`
    with inserted as (
      insert into token_catalog (coin_type, symbol, decimals, first_seen_at, unpriced_seen_at)
      select i.* from ${incoming}
      where not exists (select 1 from token_catalog c where c.coin_type = i.coin_type)
      order by i.coin_type
      on conflict (coin_type) do nothing
      returning *
    ),
    moving as materialized (
      select c.id from token_catalog c join ${incoming} on c.coin_type = i.coin_type
      where ${movesSql(sql)}
      order by c.coin_type
      for update of c
    ),
    updated as (
      update token_catalog c
      set symbol = coalesce(i.symbol, c.symbol),
          decimals = coalesce(i.decimals, c.decimals),
          first_seen_at = least(c.first_seen_at, i.first_seen_at),
          unpriced_seen_at = greatest(c.unpriced_seen_at, i.unpriced_seen_at)
      from ${incoming}
      where c.coin_type = i.coin_type and c.id in (select id from moving) and ${movesSql(sql)}
      returning c.*
    ),
    current as (
      select *, true as changed from inserted
      union all select *, true from updated
      union all
      select c.*, false from token_catalog c
      where c.coin_type = any(${tokens.map((t) => t.coinType)}::text[])
        and not exists (select 1 from updated u where u.coin_type = c.coin_type)
    )
    select coin_type as "coinType", id, symbol, decimals, first_seen_at as "firstSeenAt", unpriced_seen_at as "unpricedSeenAt", changed
    from current`;
}
