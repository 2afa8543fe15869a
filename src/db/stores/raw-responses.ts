import { createHash } from 'node:crypto';
import type { Database } from '../client.ts';
import { runQuery } from '../query.ts';
import { decodeRawBody, encodeRawBody, type RawBodyDictionary } from '../raw-body-compression.ts';
import type { Tx } from '../transaction.ts';

/** An upstream response body as received (never the request, so never the API key). */
export interface RawRecord {
  dataset: string;
  /** Path and query of the request. */
  endpoint: string;
  target: string;
  tick: Date;
  httpStatus: number;
  body: string;
  receivedAt: Date;
}

/** The current dictionary of each (dataset, target), keyed by `dictionaryKey`. */
export type RawBodyDictionaries = Map<string, RawBodyDictionary>;

const PRUNE_BATCH = 5000;

const dictionaryKey = (dataset: string, target: string) => JSON.stringify([dataset, target]);

/**
 * The newest dictionary of each (dataset, target) of `records` (one statement; a job sends it
 * together with its writes, before it compresses its bodies).
 */
export async function findRawBodyDictionaries(tx: Tx, records: RawRecord[]): Promise<RawBodyDictionaries> {
  const found: RawBodyDictionaries = new Map();
  if (records.length === 0) return found;
  // One index lookup per key (LIMIT 1 in a lateral subquery), whatever the table's size when the plan was made.
  const rows = await tx.sql<{ id: string; dataset: string; target: string; createdAt: Date; bodyZlib: Buffer }[]>`
    select d.id::text, k.dataset, k.target, d.created_at as "createdAt", d.body_zlib as "bodyZlib"
    from unnest(${records.map((r) => r.dataset)}::text[], ${records.map((r) => r.target)}::text[]) as k(dataset, target)
    cross join lateral (
      select id, created_at, body_zlib from raw_body_dictionaries
      where dataset = k.dataset and target = k.target order by created_at desc limit 1
    ) d`;
  for (const row of rows)
    found.set(dictionaryKey(row.dataset, row.target), {
      id: Number(row.id),
      createdAt: row.createdAt,
      bodyZlib: row.bodyZlib,
    });
  return found;
}

/**
 * Stores bodies compressed (src/db/raw-body-compression.ts) and returns their ids; a body that
 * becomes its target's new dictionary stores that first, in the same statement. The same body for
 * the same job (dataset, target, tick, endpoint) is stored once. `dictionaries`: from
 * findRawBodyDictionaries (looked up here when not given).
 */
export async function insertRawResponses(
  tx: Tx,
  records: RawRecord[],
  dictionaries?: RawBodyDictionaries,
): Promise<number[]> {
  const current = dictionaries ?? (await findRawBodyDictionaries(tx, records));
  return Promise.all(
    records.map(async (record) => {
      const sha256 = createHash('sha256').update(record.body, 'utf8').digest('hex');
      const success = record.httpStatus >= 200 && record.httpStatus < 300;
      const { bodyZlib, dictionary } = encodeRawBody(record.body, {
        success,
        receivedAt: record.receivedAt,
        current: current.get(dictionaryKey(record.dataset, record.target)) ?? null,
      });
      const stored = () => tx.sql<{ id: string }[]>`
      select id::text from raw_responses
      where dataset = ${record.dataset} and target = ${record.target} and tick = ${record.tick} and endpoint = ${record.endpoint} and sha256 = ${sha256}`;
      const [row] = await tx.sql<{ id: string }[]>`
      with dictionary as (
        insert into raw_body_dictionaries (dataset, target, created_at, body_zlib)
        select ${record.dataset}, ${record.target}, ${record.receivedAt}, ${dictionary && 'create' in dictionary ? dictionary.create : null}::bytea
        where ${dictionary !== null && 'create' in dictionary}::boolean
        returning id
      ), inserted as (
        insert into raw_responses (received_at, dataset, endpoint, target, tick, http_status, sha256, body_zlib, dictionary_id)
        values (${record.receivedAt}, ${record.dataset}, ${record.endpoint}, ${record.target}, ${record.tick}, ${record.httpStatus}, ${sha256},
                ${bodyZlib}, coalesce((select id from dictionary), ${dictionary && 'id' in dictionary ? dictionary.id : null}::bigint))
        on conflict do nothing
        returning id
      )
      select id::text from inserted
      union all
      select r.id::text from raw_responses r
      where not exists (select 1 from inserted) and r.dataset = ${record.dataset} and r.target = ${record.target}
        and r.tick = ${record.tick} and r.endpoint = ${record.endpoint} and r.sha256 = ${sha256}`;
      // Stored by a transaction that committed while this statement ran: a new statement sees it.
      return Number((row ?? (await stored())[0]!).id);
    }),
  );
}

/** A stored raw response with its body as received. */
export interface StoredRawResponse {
  id: number;
  receivedAt: Date;
  dataset: string;
  endpoint: string;
  target: string;
  tick: Date;
  httpStatus: number;
  sha256: string;
  body: string;
}

export interface RawResponseFilter {
  ids?: number[];
  dataset?: string;
  target?: string;
  tick?: Date;
  /** Newest first, at most this many (default 100). */
  limit?: number;
}

/** Raw responses with their bodies decompressed, newest first. */
export async function readRawResponses(
  database: Database,
  filter: RawResponseFilter = {},
): Promise<StoredRawResponse[]> {
  const rows = await runQuery(
    database,
    'raw_responses.read',
    () => database.sql<
      (Omit<StoredRawResponse, 'id' | 'body'> & {
        id: string;
        body: string | null;
        bodyZlib: Buffer | null;
        dictionaryZlib: Buffer | null;
      })[]
    >`
    select r.id::text, r.received_at as "receivedAt", r.dataset, r.endpoint, r.target, r.tick, r.http_status as "httpStatus", r.sha256,
           r.body, r.body_zlib as "bodyZlib", d.body_zlib as "dictionaryZlib"
    from raw_responses r
    left join raw_body_dictionaries d on d.id = r.dictionary_id
    where (${filter.ids ?? null}::bigint[] is null or r.id = any(${filter.ids ?? null}::bigint[]))
      and (${filter.dataset ?? null}::text is null or r.dataset = ${filter.dataset ?? null})
      and (${filter.target ?? null}::text is null or r.target = ${filter.target ?? null})
      and (${filter.tick ?? null}::timestamptz is null or r.tick = ${filter.tick ?? null})
    order by r.id desc
    limit ${filter.limit ?? 100}`,
  );
  return rows.map(({ bodyZlib, dictionaryZlib, ...row }) => ({
    ...row,
    id: Number(row.id),
    // Rows stored before compression keep their text (a NUL was stored as the six characters \u0000).
    body: bodyZlib === null ? row.body! : decodeRawBody(bodyZlib, dictionaryZlib),
  }));
}

/**
 * Deletes raw responses received more than `olderThanDays` days before `now`, in batches (short
 * transactions), then the dictionaries no remaining response uses. Quarantined payloads keep their
 * own copy of the body. Returns how many responses.
 */
export async function pruneRawResponses(database: Database, olderThanDays: number, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - olderThanDays * 86_400_000);
  let pruned = 0;
  for (;;) {
    const result = await runQuery(
      database,
      'raw_responses.prune',
      () => database.sql`
      delete from raw_responses
      where id in (select id from raw_responses where received_at < ${cutoff} order by received_at limit ${PRUNE_BATCH})`,
    );
    pruned += result.count;
    if (result.count < PRUNE_BATCH) break;
  }
  // Only dictionaries from before the cutoff: a newer one may be about to get its first body. A job
  // holding an older one loses the race on the foreign key and is retried, never stored without it.
  await runQuery(
    database,
    'raw_responses.prune',
    () => database.sql`
    delete from raw_body_dictionaries d
    where d.created_at < ${cutoff} and not exists (select 1 from raw_responses r where r.dictionary_id = d.id)`,
  );
  return pruned;
}
