import type { ProtocolsResponse } from '../upstream/schemas.ts';
import { toText } from './wire-fields.ts';
import type { ProtocolRow } from '../db/schema/rows.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';
import { keyProblem, storableJson } from '../db/storable-text.ts';
import { snippet } from '../upstream/errors.ts';
import { reasonValue } from './reason-value.ts';

/** Rows from the (undocumented) protocol list: ids, or objects with an id or a name. A repeated id merges. */
export function normalizeProtocols(response: ProtocolsResponse): ProtocolRow[] {
  const rows = new Map<string, ProtocolRow>();
  // Names and urls are free text: a NUL or a lone surrogate is stored escaped (db/storable-text.ts).
  const storable = storableJson(response);
  if ('problem' in storable) throw new UnreadablePayloadError(`protocol list ${storable.problem}`);
  for (const entry of storable.value as ProtocolsResponse) {
    const row =
      typeof entry === 'string'
        ? protocolRow(entry.trim(), {})
        : protocolRow(toText(entry.protocolId ?? entry.protocol ?? entry.id ?? entry.name)?.trim() ?? '', entry);
    if (!row.protocolId) throw new UnreadablePayloadError(`protocol entry without an id: ${reasonValue(entry)}`);
    const keyTrouble = keyProblem(row.protocolId);
    if (keyTrouble) throw new UnreadablePayloadError(`protocol id is ${keyTrouble}${snippet(row.protocolId, 80)}`);
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
