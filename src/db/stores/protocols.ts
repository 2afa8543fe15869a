import type { Database } from '../client.ts';
import type { ProtocolRow } from '../schema/rows.ts';
import { runSql } from '../query.ts';
import type { Tx } from '../transaction.ts';
import { lastByKey, writtenCounts } from './upsert.ts';

/**
 * Upserts protocols (from the protocol list or from positions' meta). A field the answer leaves out
 * keeps its stored value; a row is touched only when a field changes.
 */
export async function writeProtocols(tx: Tx, rows: ProtocolRow[]): Promise<Record<string, number>> {
  return writtenCounts({ protocols: await upsertProtocols(tx, rows) });
}

/**
 * Returns how many rows it wrote. Protocols are shared by every owner: rows stored as they would be
 * written are left out first (a no-op ON CONFLICT still locks the row for the rest of the job), the
 * rest go in key order.
 */
export async function upsertProtocols(tx: Tx, rows: ProtocolRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const sorted = lastByKey(rows, (row) => row.protocolId);
  const result = await tx.sql`
    insert into protocols as t (protocol_id, name, logo, url)
    select i.* from unnest(${sorted.map((r) => r.protocolId)}::text[], ${sorted.map((r) => r.name)}::text[], ${sorted.map((r) => r.logo)}::text[], ${sorted.map((r) => r.url)}::text[])
      as i(protocol_id, name, logo, url)
    where not exists (
      select 1 from protocols p
      where p.protocol_id = i.protocol_id
        and (p.name, p.logo, p.url) is not distinct from (coalesce(i.name, p.name), coalesce(i.logo, p.logo), coalesce(i.url, p.url)))
    on conflict (protocol_id) do update set
      name = coalesce(excluded.name, t.name), logo = coalesce(excluded.logo, t.logo), url = coalesce(excluded.url, t.url)
    where (t.name, t.logo, t.url) is distinct from (coalesce(excluded.name, t.name), coalesce(excluded.logo, t.logo), coalesce(excluded.url, t.url))`;
  return result.count;
}

/** Every known protocol id (for checking a watchlist's protocol filter). */
export async function listProtocolIds(database: Database): Promise<string[]> {
  const rows = await runSql(database, 'protocols.list')<
    { protocolId: string }[]
  >`select protocol_id as "protocolId" from protocols order by protocol_id`;
  return rows.map((row) => row.protocolId);
}
