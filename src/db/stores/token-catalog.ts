import type { TokenRow } from '../schema/rows.ts';
import type { TransactionSql } from '../client.ts';
import type { Tx } from '../transaction.ts';

interface CatalogRow {
  coinType: string;
  chain: string;
  id: number;
  /** Inserted or updated by this statement. */
  changed: boolean;
}

/** The key of a token of a chain in the map recordTokens returns. */
export function catalogKey(token: { chain: string; coinType: string }): string {
  return `${token.chain}\u0000${token.coinType}`;
}

/**
 * Records an answer's tokens and returns their ids by catalogKey; a known token is written only when
 * something moves.
 */
export async function recordTokens(tx: Tx, tokens: TokenRow[]): Promise<{ ids: Map<string, number>; written: number }> {
  if (tokens.length === 0) return { ids: new Map(), written: 0 };
  const rows = await writeCatalog(tx.sql, tokens);
  const found = new Set(rows.map(catalogKey));
  const missing = tokens.filter((token) => !found.has(catalogKey(token)));
  // Inserted meanwhile by a transaction this statement's snapshot predates: written again, so that
  // what this answer moves is not lost; the new statement sees the row.
  if (missing.length > 0) rows.push(...(await writeCatalog(tx.sql, missing)));
  return {
    ids: new Map(rows.map((row) => [catalogKey(row), row.id])),
    written: rows.filter((row) => row.changed).length,
  };
}

/** The time of the token's latest entry without a price, if the answer had one. */
function unpricedSeenAt(token: TokenRow): Date | null {
  return token.lastPriceTime === null || token.lastSeenAt > token.lastPriceTime ? token.lastSeenAt : null;
}

/** Whether incoming row i moves stored row c. */
function movesSql(sql: TransactionSql) {
  return sql`(c.symbol, c.decimals, c.first_seen_at, c.unpriced_seen_at) is distinct from
    (coalesce(i.symbol, c.symbol), coalesce(i.decimals, c.decimals), least(c.first_seen_at, i.first_seen_at),
     greatest(c.unpriced_seen_at, i.unpriced_seen_at))`;
}

/**
 * One statement inserts the new tokens, updates the moved ones and returns every token asked for,
 * locking in key order: overlapping writers (a backfill's jobs) queue instead of deadlocking.
 */
async function writeCatalog(sql: TransactionSql, tokens: TokenRow[]): Promise<CatalogRow[]> {
  const incoming = sql`unnest(
      ${tokens.map((t) => t.coinType)}::text[], ${tokens.map((t) => t.chain)}::text[], ${tokens.map((t) => t.symbol)}::text[],
      ${tokens.map((t) => t.decimals)}::int[], ${tokens.map((t) => t.firstSeenAt.toISOString())}::timestamptz[],
      ${tokens.map((t) => unpricedSeenAt(t)?.toISOString() ?? null)}::timestamptz[]
    ) as i(coin_type, chain, symbol, decimals, first_seen_at, unpriced_seen_at)`;
  const same = sql`c.coin_type = i.coin_type and c.chain = i.chain`;
  return sql<CatalogRow[]>`
    with inserted as (
      insert into token_catalog (coin_type, chain, symbol, decimals, first_seen_at, unpriced_seen_at)
      select i.* from ${incoming}
      where not exists (select 1 from token_catalog c where ${same})
      order by i.coin_type, i.chain
      on conflict (coin_type, chain) do nothing
      returning *
    ),
    moving as materialized (
      select c.id from token_catalog c join ${incoming} on ${same}
      where ${movesSql(sql)}
      order by c.coin_type, c.chain
      for update of c
    ),
    updated as (
      update token_catalog c
      set symbol = coalesce(i.symbol, c.symbol),
          decimals = coalesce(i.decimals, c.decimals),
          first_seen_at = least(c.first_seen_at, i.first_seen_at),
          unpriced_seen_at = greatest(c.unpriced_seen_at, i.unpriced_seen_at)
      from ${incoming}
      where ${same} and c.id in (select id from moving) and ${movesSql(sql)}
      returning c.*
    ),
    current as (
      select *, true as changed from inserted
      union all select *, true from updated
      union all
      select c.*, false from token_catalog c join (select distinct coin_type, chain from ${incoming}) i on ${same}
      where not exists (select 1 from updated u where u.id = c.id)
    )
    select coin_type as "coinType", chain, id, changed from current`;
}
