import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS_FOLDER, runMigrations } from '../../src/db/migrate.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

/**
 * A database of its own migrated up to (not including) the migration whose tag starts with `before`
 * (`'0017'`), as a deployment of an older release has it; `runMigrations(older.url)` then upgrades it.
 */
export async function migratedBefore(before: string): Promise<{ older: TestDatabase; cleanup: () => Promise<void> }> {
  const older = await createTestDatabase({ migrate: false });
  const folder = mkdtempSync(join(tmpdir(), 'chaintap-migrations-'));
  try {
    cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journal = JSON.parse(readFileSync(join(folder, 'meta/_journal.json'), 'utf8')) as {
      entries: { tag: string }[];
    };
    journal.entries = journal.entries.filter((entry) => entry.tag < before);
    writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify(journal));
    await runMigrations(older.url, folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return { older, cleanup: () => older.drop() };
}
