import type { Sql } from './client.ts';
import { decodeRawBody } from './raw-body-compression.ts';
import { storedBody } from './stores/raw-responses.ts';

/** Rows converted per transaction: a body is at most UPSTREAM_MAX_BODY_BYTES, most are a few KB. */
const BATCH = 100;

/**
 * Migration 0017's data step, run by `chaintap migrate` after the SQL migrations: every raw body
 * still in the zlib form of 0007 (body_zlib) becomes text (or bytes, when it holds a NUL), in short
 * transactions, then the dictionaries no row uses are deleted. Safe to run again and while workers
 * of the previous release still write the zlib form (a later run converts what they wrote). Does
 * nothing on a database without those columns (before 0017, or after the release that drops them).
 * Returns how many bodies it converted.
 */
export async function convertZlibRawBodies(sql: Sql): Promise<number> {
  const [layout] = await sql<{ columns: number }[]>`
    select count(*)::int as columns from information_schema.columns
    where table_schema = current_schema() and table_name = 'raw_responses' and column_name in ('body_bytes', 'body_zlib')`;
  if (layout!.columns < 2) return 0;
  let converted = 0;
  // The advisory lock of `chaintap migrate` keeps other runs out; nothing else changes these rows.
  for (;;) {
    const count = await sql.begin(async (tx) => {
      const rows = await tx<{ id: string; bodyZlib: Buffer; dictionaryZlib: Buffer | null }[]>`
        select r.id::text, r.body_zlib as "bodyZlib", d.body_zlib as "dictionaryZlib"
        from raw_responses r left join raw_body_dictionaries d on d.id = r.dictionary_id
        where r.body_zlib is not null
        order by r.id limit ${BATCH}`;
      const bodies = rows.map((row) => storedBody(decodeRawBody(row.bodyZlib, row.dictionaryZlib)));
      await tx`
        update raw_responses r set body = c.body, body_bytes = decode(c.bytes_hex, 'hex'), body_zlib = null, dictionary_id = null
        from unnest(${rows.map((row) => row.id)}::bigint[], ${bodies.map((body) => body.text)}::text[],
                    ${bodies.map((body) => body.bytes?.toString('hex') ?? null)}::text[]) as c(id, body, bytes_hex)
        where r.id = c.id`;
      return rows.length;
    });
    converted += count;
    if (count < BATCH) break;
  }
  await sql`delete from raw_body_dictionaries d where not exists (select 1 from raw_responses r where r.dictionary_id = d.id)`;
  return converted;
}
