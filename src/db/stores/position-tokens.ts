import type { TransactionSql } from '../client.ts';
import type { PositionAmountRow } from '../schema/rows.ts';
import type { Tx } from '../transaction.ts';
import { jsonText } from './upsert.ts';

/** A position_tokens row: rows are never changed once inserted. */
export interface KnownPositionToken {
  id: number;
  /** The first token object seen (null: the token came as a string). */
  info: Record<string, unknown> | null;
}

/** What identifies a position_tokens row (the three its digest is made of). */
function positionTokenKey(row: Pick<PositionAmountRow, 'token' | 'tokenSymbol' | 'tokenInfo'>): string {
  return JSON.stringify([row.token, row.tokenSymbol, row.tokenInfo !== null]);
}

/**
 * The position_tokens row of each amount entry's token, inserted (in key order, with the first token
 * object seen) or read. `inserted` counts the new rows.
 */
export async function resolvePositionTokens(
  tx: Tx,
  amounts: PositionAmountRow[],
): Promise<{ tokenOf: Map<PositionAmountRow, KnownPositionToken>; inserted: number }> {
  const keys = amounts.map(positionTokenKey);
  const firstOf = new Map<string, PositionAmountRow>();
  amounts.forEach((row, i) => {
    if (!firstOf.has(keys[i])) firstOf.set(keys[i], row);
  });
  const wanted = [...firstOf.keys()].sort().map((key) => firstOf.get(key)!);
  const rows = wanted.length === 0 ? [] : await insertOrRead(tx.sql, wanted);
  const found = new Set(rows.map(positionTokenKey));
  const missing = wanted.filter((row) => !found.has(positionTokenKey(row)));
  // Inserted meanwhile by a transaction this statement's snapshot predates: the next statement sees it.
  if (missing.length > 0) rows.push(...(await insertOrRead(tx.sql, missing)));
  const byKey = new Map(rows.map((row) => [positionTokenKey(row), { id: row.id, info: row.tokenInfo }]));
  const tokenOf = new Map<PositionAmountRow, KnownPositionToken>();
  amounts.forEach((row, i) => {
    const token = byKey.get(keys[i]);
    if (!token) throw new Error(`position_tokens: no row for ${keys[i]} after inserting it`);
    tokenOf.set(row, token);
  });
  return { tokenOf, inserted: rows.filter((row) => row.inserted).length };
}

type TokenRow = Pick<PositionAmountRow, 'token' | 'tokenSymbol' | 'tokenInfo'> & { id: number; inserted: boolean };

/** The position_tokens row of incoming token i. */
const STORED_MATCH = 'k.digest = chaintap_position_token_digest(i.token, i.symbol, i.info is not null)';

/** Inserts the tokens not stored yet; returns them and the stored ones this statement's snapshot sees. */
async function insertOrRead(sql: TransactionSql, rows: PositionAmountRow[]): Promise<TokenRow[]> {
  return sql<TokenRow[]>`
    with i as (
      select * from unnest(${rows.map((r) => r.token)}::text[], ${rows.map((r) => r.tokenSymbol)}::text[], ${rows.map((r) => jsonText(r.tokenInfo))}::text[])
        with ordinality as i(token, symbol, info, n)
    ),
    inserted as (
      insert into position_tokens (token, symbol, info)
      select i.token, i.symbol, i.info::jsonb from i
      where not exists (select 1 from position_tokens k where ${sql.unsafe(STORED_MATCH)})
      order by i.n
      on conflict (digest) do nothing
      returning id, token, symbol, info
    )
    select id, token, symbol as "tokenSymbol", info as "tokenInfo", true as inserted from inserted
    union all
    select k.id, k.token, k.symbol, k.info, false from i join position_tokens k on ${sql.unsafe(STORED_MATCH)}`;
}
