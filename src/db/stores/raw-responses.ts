import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { rawResponses } from '../schema/index.js';
import type { Tx } from '../transaction.js';

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

const PRUNE_BATCH = 5000;

/**
 * Stores bodies and returns their ids. The same body for the same job (dataset, target, tick,
 * endpoint) is stored once. Postgres text cannot hold NUL: a NUL character is stored as the six
 * characters \u0000 (the sha256 is of the body as received).
 */
export async function insertRawResponses(tx: Tx, records: RawRecord[]): Promise<number[]> {
  return Promise.all(records.map(async (record) => {
    const sha256 = createHash('sha256').update(record.body, 'utf8').digest('hex');
    const stored = () => tx.sql<{ id: string }[]>`
      select id::text from raw_responses
      where dataset = ${record.dataset} and target = ${record.target} and tick = ${record.tick} and endpoint = ${record.endpoint} and sha256 = ${sha256}`;
    const [row] = await tx.sql<{ id: string }[]>`
      with inserted as (
        insert into raw_responses (received_at, dataset, endpoint, target, tick, http_status, sha256, body)
        values (${record.receivedAt}, ${record.dataset}, ${record.endpoint}, ${record.target}, ${record.tick}, ${record.httpStatus},
                ${sha256}, ${record.body.replaceAll('\u0000', '\\u0000')})
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
  }));
}

/**
 * Deletes raw responses received more than `olderThanDays` days before `now`, in batches (short
 * transactions). Quarantined payloads keep their own copy of the body. Returns how many.
 */
export async function pruneRawResponses(database: Database, olderThanDays: number, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - olderThanDays * 86_400_000);
  let pruned = 0;
  for (;;) {
    const rows = await database.db
      .delete(rawResponses)
      .where(sql`${rawResponses.id} in (select id from raw_responses where received_at < ${cutoff} order by received_at limit ${PRUNE_BATCH})`)
      .returning({ id: rawResponses.id });
    pruned += rows.length;
    if (rows.length < PRUNE_BATCH) return pruned;
  }
}

