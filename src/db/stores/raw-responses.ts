import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import type { Database } from '../client.ts';
import type { rawResponses } from '../schema/index.ts';
import { runSql } from '../query.ts';
import type { Tx } from '../transaction.ts';

type RawResponseRow = typeof rawResponses.$inferSelect;

/** An upstream response body as received (never the request, so never the API key); `endpoint`: the request's path and query. */
export type RawRecord = Pick<
  RawResponseRow,
  'dataset' | 'endpoint' | 'target' | 'tick' | 'httpStatus' | 'receivedAt'
> & {
  body: string;
};

const PRUNE_BATCH = 5000;

/** A body as text or, when it holds a NUL (which Postgres text cannot), as its UTF-8 bytes. */
export function storedBody(body: string): { text: string | null; bytes: Buffer | null } {
  return body.includes('\u0000') ? { text: null, bytes: Buffer.from(body, 'utf8') } : { text: body, bytes: null };
}

/** A body in the zlib form of migrations 0007 to 0017 (only read now), with its dictionary if any. */
export function decodeRawBody(bodyZlib: Buffer, dictionaryZlib: Buffer | null): string {
  return inflateSync(bodyZlib, dictionaryZlib ? { dictionary: inflateSync(dictionaryZlib) } : {}).toString('utf8');
}

/** Stores bodies, once per job (dataset, target, tick, endpoint) and body, and returns their ids. */
export async function insertRawResponses(tx: Tx, records: RawRecord[]): Promise<number[]> {
  return Promise.all(
    records.map(async (record) => {
      const sha256 = createHash('sha256').update(record.body, 'utf8').digest('hex');
      const { text, bytes } = storedBody(record.body);
      const [inserted] = await tx.sql<{ id: string }[]>`
        insert into raw_responses (received_at, dataset, endpoint, target, tick, http_status, sha256, body, body_bytes)
        values (${record.receivedAt}, ${record.dataset}, ${record.endpoint}, ${record.target}, ${record.tick}, ${record.httpStatus}, ${sha256},
                ${text}, ${bytes})
        on conflict do nothing
        returning id::text`;
      if (inserted) return Number(inserted.id);
      // Stored already, maybe by a transaction that committed while the insert ran: a new statement sees it.
      const [stored] = await tx.sql<{ id: string }[]>`
        select id::text from raw_responses
        where dataset = ${record.dataset} and target = ${record.target} and tick = ${record.tick} and endpoint = ${record.endpoint} and sha256 = ${sha256}`;
      return Number(stored!.id);
    }),
  );
}

/** A stored raw response with its body as received; `id`: a bigint as its decimal string (exact past 2^53). */
type StoredRawResponse = RawRecord & Pick<RawResponseRow, 'sha256'> & { id: string };

export interface RawResponseFilter {
  /** Decimal strings (raw_responses.id is a bigint). */
  ids?: string[];
  dataset?: string;
  target?: string;
  tick?: Date;
  /** Newest first, at most this many (default 100). */
  limit?: number;
}

export async function readRawResponses(
  database: Database,
  filter: RawResponseFilter = {},
): Promise<StoredRawResponse[]> {
  const rows = await runSql(database, 'raw_responses.read')<
    (Omit<StoredRawResponse, 'body'> &
      Pick<RawResponseRow, 'body' | 'bodyBytes' | 'bodyZlib'> & { dictionaryZlib: Buffer | null })[]
  >`
    select r.id::text, r.received_at as "receivedAt", r.dataset, r.endpoint, r.target, r.tick, r.http_status as "httpStatus", r.sha256,
           r.body, r.body_bytes as "bodyBytes", r.body_zlib as "bodyZlib", d.body_zlib as "dictionaryZlib"
    from raw_responses r
    left join raw_body_dictionaries d on d.id = r.dictionary_id
    where (${filter.ids ?? null}::bigint[] is null or r.id = any(${filter.ids ?? null}::bigint[]))
      and (${filter.dataset ?? null}::text is null or r.dataset = ${filter.dataset ?? null})
      and (${filter.target ?? null}::text is null or r.target = ${filter.target ?? null})
      and (${filter.tick ?? null}::timestamptz is null or r.tick = ${filter.tick ?? null})
    order by r.id desc
    limit ${filter.limit ?? 100}`;
  return rows.map(({ body, bodyBytes, bodyZlib, dictionaryZlib, ...row }) => ({
    ...row,
    // A row a release before 0017 wrote in the zlib form, not converted yet (src/db/migrate.ts).
    body: body ?? bodyBytes?.toString('utf8') ?? decodeRawBody(bodyZlib!, dictionaryZlib),
  }));
}

/** Deletes raw responses received `olderThanDays` before `now`, in short batches, then unused dictionaries. */
export async function pruneRawResponses(database: Database, olderThanDays: number, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - olderThanDays * 86_400_000);
  let pruned = 0;
  for (;;) {
    const result = await runSql(database, 'raw_responses.prune')`
      delete from raw_responses
      where id in (select id from raw_responses where received_at < ${cutoff} order by received_at limit ${PRUNE_BATCH})`;
    pruned += result.count;
    if (result.count < PRUNE_BATCH) break;
  }
  // Only dictionaries from before the cutoff: a worker of the previous release may be about to give
  // a newer one its first body.
  await runSql(database, 'raw_responses.prune')`
    delete from raw_body_dictionaries d
    where d.created_at < ${cutoff} and not exists (select 1 from raw_responses r where r.dictionary_id = d.id)`;
  return pruned;
}
