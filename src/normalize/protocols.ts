import type { ProtocolsResponse } from '../upstream/schemas.ts';
import { toText } from './integer.ts';
import type { ProtocolRow } from '../db/schema/rows.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';

/**
 * Rows from the protocol list (its shape is not documented: ids, or objects with an id under
 * `protocolId`, `protocol` or `id`, or only a name). A repeated id merges, later fields winning.
 */
export function normalizeProtocols(response: ProtocolsResponse): ProtocolRow[] {
  const rows = new Map<string, ProtocolRow>();
  for (const entry of response) {
    const row =
      typeof entry === 'string'
        ? protocolRow(entry.trim(), {})
        : protocolRow(toText(entry.protocolId ?? entry.protocol ?? entry.id ?? entry.name)?.trim() ?? '', entry);
    if (!row.protocolId) throw new UnreadablePayloadError(`protocol entry without an id: ${JSON.stringify(entry)}`);
    const known = rows.get(row.protocolId);
    rows.set(row.protocolId, known ? mergeProtocol(known, row) : row);
  }
  return [...rows.values()];
}

export function protocolRow(
  protocolId: string,
  fields: { name?: string | null; logo?: string | null; url?: string | null },
): ProtocolRow {
  return { protocolId, name: fields.name ?? null, logo: fields.logo ?? null, url: fields.url ?? null };
}

export function mergeProtocol(known: ProtocolRow, row: ProtocolRow): ProtocolRow {
  return {
    protocolId: row.protocolId,
    name: row.name ?? known.name,
    logo: row.logo ?? known.logo,
    url: row.url ?? known.url,
  };
}
