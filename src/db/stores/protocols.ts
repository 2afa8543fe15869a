import type { Database } from '../client.ts';
import type { ProtocolRow } from '../schema/rows.ts';
import { runSql } from '../query.ts';
import type { Tx } from '../transaction.ts';
import { conflictUpdate, lastByKey, writtenCounts } from './upsert.ts';

/** Upserts protocols (from the protocol list or positions' meta); a row is touched only when a field changes. */
export async function writeProtocols(tx: Tx, rows: ProtocolRow[]): Promise<Record<string, number>> {
  return writtenCounts({ protocols: await upsertProtocols(tx, rows) });
}

// A field the answer leaves out keeps its stored value.
const PROTOCOL_UPDATE = conflictUpdate({
  name: 'coalesce(excluded.name, t.name)',
  logo: 'coalesce(excluded.logo, t.logo)',
  url: 'coalesce(excluded.url, t.url)',
});

/** Protocols are shared: unchanged rows are left out (a no-op ON CONFLICT still locks), the rest go in key order. */
export async function upsertProtocols(tx: Tx, rows: ProtocolRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const sorted = lastByKey(rows, (row) => row.protocolId);
  const result = await tx.sql`
    insert into protocols as t (protocol_id, name, logo, url)
    select i.* from unnest(${sorted.map((r) => r.protocolId)}::text[], ${sorted.map((r) => r.name)}::text[], ${sorted.map((r) => r.logo)}::text[], ${sorted.map((r) => r.url)}::text[])
      as i(protocol_id, name, logo, url)
    where not exists (select 1 from protocols t where t.protocol_id = i.protocol_id and ${tx.sql.unsafe(PROTOCOL_UPDATE.unchanged)})
    on conflict (protocol_id) ${tx.sql.unsafe(PROTOCOL_UPDATE.update)}`;
  return result.count;
}

/** Every known protocol id (for checking a watchlist's protocol filter). */
export async function listProtocolIds(database: Database): Promise<string[]> {
  const rows = await runSql(database, 'protocols.list')<{ protocolId: string }[]>`
    select protocol_id as "protocolId" from protocols order by protocol_id`;
  return rows.map((row) => row.protocolId);
}
