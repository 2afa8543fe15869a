import { sql } from 'drizzle-orm';
import type { ProtocolRow } from '../../normalize/rows.js';
import { batchesFor, lastByKey } from '../batches.js';
import type { Database } from '../client.js';
import { protocols } from '../schema/index.js';
import type { Tx } from '../transaction.js';

/**
 * Upserts protocols (from the protocol list or from positions' meta). A field the answer leaves out
 * keeps its stored value; a row is touched only when a field changes.
 */
export async function writeProtocols(tx: Tx, rows: ProtocolRow[]): Promise<Record<string, number>> {
  let written = 0;
  for (const batch of batchesFor(lastByKey(rows, (row) => row.protocolId), 4)) {
    const result = await tx.db
      .insert(protocols)
      .values(batch)
      .onConflictDoUpdate({
        target: protocols.protocolId,
        set: {
          name: sql`coalesce(excluded.name, ${protocols.name})`,
          logo: sql`coalesce(excluded.logo, ${protocols.logo})`,
          url: sql`coalesce(excluded.url, ${protocols.url})`,
        },
        setWhere: sql`(${protocols.name}, ${protocols.logo}, ${protocols.url}) is distinct from
          (coalesce(excluded.name, ${protocols.name}), coalesce(excluded.logo, ${protocols.logo}), coalesce(excluded.url, ${protocols.url}))`,
      })
      .returning({ protocolId: protocols.protocolId });
    written += result.length;
  }
  return written > 0 ? { protocols: written } : {};
}

/** Every known protocol id (for checking a watchlist's protocol filter). */
export async function listProtocolIds(database: Database): Promise<string[]> {
  const rows = await database.db.select({ protocolId: protocols.protocolId }).from(protocols).orderBy(protocols.protocolId);
  return rows.map((row) => row.protocolId);
}
