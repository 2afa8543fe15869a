import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { Sql } from '../../src/db/client.ts';

/**
 * Stores a raw response in the zlib form of migration 0007 (as workers of the release before 0017
 * wrote them): the body compressed against `dictionary` (an earlier body of the target, stored in
 * raw_body_dictionaries compressed alone), or alone. Returns the row's id.
 */
export async function insertZlibRawBody(
  sql: Sql,
  row: { target: string; tick: Date; body: string; dictionary?: string },
): Promise<string> {
  const bytes = Buffer.from(row.body, 'utf8');
  let dictionaryId: string | null = null;
  let bodyZlib = deflateSync(bytes);
  if (row.dictionary !== undefined) {
    const dictionary = Buffer.from(row.dictionary, 'utf8');
    const [created] = await sql<{ id: string }[]>`
      insert into raw_body_dictionaries (dataset, target, created_at, body_zlib)
      values ('positions', ${row.target}, ${row.tick}, ${deflateSync(dictionary)}) returning id::text`;
    dictionaryId = created!.id;
    bodyZlib = deflateSync(bytes, { dictionary });
  }
  const [stored] = await sql<{ id: string }[]>`
    insert into raw_responses (received_at, dataset, endpoint, target, tick, http_status, sha256, body_zlib, dictionary_id)
    values (${row.tick}, 'positions', ${`/v2/address/${row.target}/positions`}, ${row.target}, ${row.tick}, 200,
            ${createHash('sha256').update(row.body, 'utf8').digest('hex')}, ${bodyZlib}, ${dictionaryId})
    returning id::text`;
  return stored!.id;
}
