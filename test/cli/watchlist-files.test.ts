import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFailure } from '../../src/cli/failure.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * Watchlists of any size (issue 24): files of 100,000 lines are streamed into the database in
 * batches, in one transaction, and every error is one line. (Before, such a file exited with
 * MAX_PARAMETERS_EXCEEDED and megabytes of SQL, or with a stack overflow.) 100,000 values are
 * more than one statement can bind (65,534) and ten of the store's batches of 10,000.
 */
const LINES = 100_000;
const folder = mkdtempSync(join(tmpdir(), 'chaintap-watchlist-files-'));
let database: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
});
afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await database?.drop();
});

const cli = (...args: string[]) => runCli(args, env, 300_000);
const coinType = (i: number) => `0x${(i + 1).toString(16)}::module${i}::Coin${i}`;
const suiAddress = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
const evmAddress = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const count = async (table: string) =>
  (await database.sql.unsafe<{ n: number }[]>(`select count(*)::int as n from ${table}`))[0]!.n;

/** A file of the values, with a comment, blank lines and each hundredth value twice. */
function writeList(name: string, values: (i: number) => string, lines = LINES, bad?: { at: number; value: string }) {
  const path = join(folder, name);
  const text: string[] = ['# a watchlist', ''];
  for (let i = 0; i < lines; i++) {
    text.push(bad?.at === i ? bad.value : values(i));
    if (i % 100 === 0) text.push(`  ${values(i)}  # again`);
  }
  writeFileSync(path, `${text.join('\n')}\n`);
  return path;
}

describe('watchlist files of any size', () => {
  it('adds and removes 100,000 coin types from a file, duplicates once', async () => {
    const file = writeList('tokens.txt', coinType);
    const added = await cli('tokens', 'add', '--file', file);
    expect(added.stderr).toBe('');
    expect(added.stdout).toBe(`added ${LINES} token(s), 0 already watched\n`);
    expect(await count('watched_tokens')).toBe(LINES);
    const again = await cli('tokens', 'add', coinType(7), '--file', file);
    expect(again.stdout).toBe(`added 0 token(s), ${LINES} already watched\n`);
    const removed = await cli('tokens', 'remove', '--file', file);
    expect(removed.stdout).toBe(`removed ${LINES} token(s)\n`);
    expect(await count('watched_tokens')).toBe(0);
  }, 600_000);

  it('adds and removes 100,000 addresses of two formats from a file, with their options', async () => {
    const file = writeList('addresses.txt', (i) => (i % 2 === 0 ? suiAddress(i) : evmAddress(i)));
    const added = await cli('addresses', 'add', '--file', file, '--datasets', 'nfts', '--pnl');
    expect(added.stderr).toBe('');
    expect(added.stdout).toBe(`added ${LINES} address(es), updated 0\n`);
    const [stored] = await database.sql<{ n: number; nfts: number; pnl: number }[]>`
      select count(*)::int as n, count(*) filter (where datasets = '{nfts}')::int as nfts,
             count(*) filter (where include_pnl)::int as pnl
      from watched_addresses`;
    expect(stored).toEqual({ n: LINES, nfts: LINES, pnl: LINES });
    const updated = await cli('addresses', 'add', '--file', file, '--no-pnl');
    expect(updated.stdout).toBe(`added 0 address(es), updated ${LINES}\n`);
    const removed = await cli('addresses', 'remove', '--file', file);
    expect(removed.stdout).toBe(`removed ${LINES} address(es)\n`);
    expect(await count('watched_addresses')).toBe(0);
  }, 600_000);

  it('writes nothing when one line of 100,000 is bad, naming its file and line in one line', async () => {
    const file = writeList('bad-tokens.txt', coinType, LINES, { at: 75_000, value: '0x2::sui' });
    const failed = await cli('tokens', 'add', '--file', file);
    expect(failed.code).toBe(1);
    // Value 75,000 is on line 75,753: after the comment, the blank line, 75,000 values and the
    // 750 duplicates that follow each hundredth value.
    expect(failed.stderr).toBe(
      `error: nothing written: ${file}:75753: invalid coin type "0x2::sui": expected address::module::Name\n`,
    );
    expect(await count('watched_tokens')).toBe(0);
  }, 600_000);

  it('says a database error in one line, never the SQL nor its parameters', async () => {
    // A role that may read the watchlist but not write it.
    const role = `${database.name}_reader`;
    await database.sql.unsafe(`create role "${role}" login`);
    await database.sql.unsafe(`grant usage on schema public to "${role}"`);
    await database.sql.unsafe(`grant select on watched_tokens to "${role}"`);
    try {
      const url = new URL(database.url);
      url.username = role;
      const file = writeList('denied.txt', coinType, 50_000);
      const denied = await runCli(['tokens', 'add', '--file', file], { ...env, DATABASE_URL: url.toString() });
      expect(denied.code).toBe(1);
      expect(denied.stderr).toBe(
        'error: PostgreSQL: permission denied for table watched_tokens (SQLSTATE 42501, DATABASE_URL): the role of DATABASE_URL lacks a privilege\n',
      );
    } finally {
      await database.sql.unsafe(`drop owned by "${role}"`);
      await database.sql.unsafe(`drop role "${role}"`);
    }
  }, 300_000);

  it('describes a query the driver refused in one line, without its SQL or parameters', () => {
    const refused = Object.assign(new Error('Max number of parameters (65534) exceeded'), {
      code: 'MAX_PARAMETERS_EXCEEDED',
    });
    const drizzle = new Error(
      `Failed query: insert into "watched_tokens" ("coin_type") values ${'($1), '.repeat(70_000)}\nparams: ${'0x2::sui::SUI,'.repeat(70_000)}`,
      {
        cause: refused,
      },
    );
    const line = describeFailure(drizzle, {});
    expect(line).toBe(
      'PostgreSQL: Error MAX_PARAMETERS_EXCEEDED: Max number of parameters (65534) exceeded (DATABASE_URL)',
    );
  });
});
