import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { convertZlibRawBodies } from './raw-body-conversion.ts';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

/** Arbitrary but fixed: the advisory lock that serializes concurrent `migrate` runs. */
const MIGRATION_LOCK_ID = 7_254_410_001;

/**
 * Applies the pending migrations, then the data steps a migration needs code for (0017: raw bodies
 * in the zlib form become text). Safe to run again and from several processes at once: drizzle's
 * migrator takes no lock, so an advisory lock serializes the runs.
 */
export async function runMigrations(url: string, migrationsFolder = MIGRATIONS_FOLDER): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    try {
      await migrate(drizzle(sql), { migrationsFolder });
      await convertZlibRawBodies(sql);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Creates the database named in `url` when it does not exist, connecting to its `postgres` database. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
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
    // Two processes may race to create it.
    if ((error as { code?: string }).code === '42P04') return false;
    throw error;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
