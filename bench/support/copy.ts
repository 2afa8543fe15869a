/**
 * A plain COPY of rows into a table: the benchmarks' baseline for the price store's write path
 * (bench/scenarios/write-path.ts, bench/tools/price-storage.ts). chaintap itself writes a price
 * job's 50 rows in one statement and has no COPY path.
 */
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { TransactionSql } from '../../src/db/client.ts';

export type CopyValue = string | number | Date | null;

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
/** Rows per chunk written to the COPY stream: large enough to keep per-write overhead small. */
const ROWS_PER_CHUNK = 2000;

/** A field in COPY text format: \N for null, ISO 8601 for times, tab/newline/backslash escaped. */
function copyField(value: CopyValue): string {
  if (value === null) return '\\N';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') return String(value);
  return value.replace(/[\\\t\n\r]/g, (char) => ESCAPES[char]!);
}

/** The COPY text of rows, in chunks (built once, so that a retried COPY reuses it). */
export function copyText(rows: CopyValue[][]): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_CHUNK) {
    let chunk = '';
    for (const row of rows.slice(i, i + ROWS_PER_CHUNK)) chunk += `${row.map(copyField).join('\t')}\n`;
    chunks.push(chunk);
  }
  return chunks;
}

/**
 * COPY ... FROM STDIN of prepared text into `table (columns)`. Rejects with the server's error
 * (e.g. 23505 unique_violation). postgres.js 3.4.9 never settles the stream when the server rejects
 * the data after the last chunk was sent (porsager/postgres#1173, fix pending in #1183): the error
 * only reaches the query's own reject, so it is passed on to the stream from there.
 */
export async function copyInto(
  sql: TransactionSql,
  table: string,
  columns: readonly string[],
  text: string[],
): Promise<void> {
  const query = sql`copy ${sql(table)} (${sql(columns as string[])}) from stdin`;
  const internals = query as unknown as { reject: (error: unknown) => void };
  const reject = internals.reject;
  const opened: { stream?: Writable } = {};
  internals.reject = (error) => {
    opened.stream?.destroy(error instanceof Error ? error : new Error(String(error)));
    reject(error);
  };
  opened.stream = await query.writable();
  await pipeline(Readable.from(text), opened.stream);
}
