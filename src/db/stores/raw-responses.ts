import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
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
  const ids: number[] = [];
  for (const record of records) {
    const row = {
      receivedAt: record.receivedAt,
      dataset: record.dataset,
      endpoint: record.endpoint,
      target: record.target,
      tick: record.tick,
      httpStatus: record.httpStatus,
      sha256: createHash('sha256').update(record.body, 'utf8').digest('hex'),
      body: record.body.replaceAll('\u0000', '\\u0000'),
    };
    const [inserted] = await tx.db.insert(rawResponses).values(row).onConflictDoNothing().returning({ id: rawResponses.id });
    if (inserted) {
      ids.push(inserted.id);
      continue;
    }
    const r = rawResponses;
    const [stored] = await tx.db.select({ id: r.id }).from(r).where(and(
      eq(r.dataset, row.dataset), eq(r.target, row.target), eq(r.tick, row.tick), eq(r.endpoint, row.endpoint), eq(r.sha256, row.sha256),
    ));
    ids.push(stored!.id);
  }
  return ids;
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

