import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { Sql } from './client.ts';
import { applySchemaComments, readSchemaComments } from './schema-comments.ts';
import { decodeRawBody, storedBody } from './stores/raw-responses.ts';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

/** Arbitrary but fixed: the advisory lock that serializes concurrent `migrate` runs. */
const MIGRATION_LOCK_ID = 7_254_410_001;
/** Raw bodies converted per transaction: at most UPSTREAM_MAX_BODY_BYTES each, most a few KB. */
const CONVERSION_BATCH = 100;

/**
 * Applies the pending migrations, then the data steps that need code (0017: zlib raw bodies become
 * text), then the descriptions of docs/schema.md (COMMENT ON, where they changed). Safe to run again
 * and at once: an advisory lock serializes runs (drizzle's migrator takes none).
 */
export async function runMigrations(url: string, migrationsFolder = MIGRATIONS_FOLDER): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    try {
      await migrate(drizzle(sql), { migrationsFolder });
      await convertZlibRawBodies(sql);
      await applySchemaComments(sql, readSchemaComments(migrationsFolder));
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Creates the database named in `url` when it does not exist, connecting to its `postgres` database. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) return false;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select 1 from pg_database where datname = ${name}`;
    if (row) return false;
    await sql.unsafe(`create database "${name.replace(/"/g, '""')}"`);
    return true;
  } catch (error) {
    // Processes started together all find it missing: the first creates it, the others fail with
    // duplicate_database, or with a unique violation of pg_database's name index when their insert
    // waited for the first's, which has committed by then. Either way the database is there.
    if (createdMeanwhile(error)) return false;
    throw error;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

function createdMeanwhile(error: unknown): boolean {
  const { code, constraint_name: constraint } = error as { code?: string; constraint_name?: string };
  return code === '42P04' || (code === '23505' && constraint === 'pg_database_datname_index');
}

/**
 * Migration 0017's data step: zlib raw bodies become text (or bytes), in short transactions. Safe
 * while older workers still write them (a later run converts those); returns how many it converted.
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
        order by r.id limit ${CONVERSION_BATCH}`;
      const bodies = rows.map((row) => storedBody(decodeRawBody(row.bodyZlib, row.dictionaryZlib)));
      await tx`
        update raw_responses r set body = c.body, body_bytes = decode(c.bytes_hex, 'hex'), body_zlib = null, dictionary_id = null
        from unnest(${rows.map((row) => row.id)}::bigint[], ${bodies.map((body) => body.text)}::text[],
                    ${bodies.map((body) => body.bytes?.toString('hex') ?? null)}::text[]) as c(id, body, bytes_hex)
        where r.id = c.id`;
      return rows.length;
    });
    converted += count;
    if (count < CONVERSION_BATCH) break;
  }
  await sql`delete from raw_body_dictionaries d where not exists (select 1 from raw_responses r where r.dictionary_id = d.id)`;
  return converted;
}
