import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReaderLogin, scramVerifier } from '../../src/db/reader-login.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// The read-only login `chaintap demo` prints for BI tools. Roles are cluster-wide: this file's has a
// name of its own, dropped at the end.
const ROLE = `chaintap_test_reader_${randomBytes(4).toString('hex')}`;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  if (!database) return;
  await database.sql.unsafe(`drop role if exists ${ROLE}`);
  await database.drop();
});

describe('scramVerifier', () => {
  it('computes the verifier Postgres itself stores for the same password and salt', async () => {
    const role = `${ROLE}_scram`;
    await database.sql.begin(async (sql) => {
      await sql`set local password_encryption = 'scram-sha-256'`;
      await sql.unsafe(`create role ${role} password 'pencil and paper'`);
    });
    try {
      const [row] = await database.sql<
        { stored: string }[]
      >`select rolpassword as stored from pg_authid where rolname = ${role}`;
      const salt = Buffer.from(/^SCRAM-SHA-256\$4096:([^$]+)\$/.exec(row!.stored)![1]!, 'base64');
      expect(scramVerifier('pencil and paper', salt)).toBe(row!.stored);
    } finally {
      await database.sql.unsafe(`drop role ${role}`);
    }
  });
});

describe('createReaderLogin', () => {
  it("makes a login with chaintap_reader's rights and a new password each time, sent as a verifier", async () => {
    const url = await createReaderLogin(database, database.url, ROLE);
    const parsed = new URL(url);
    expect(parsed.username).toBe(ROLE);
    expect(parsed.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(`${parsed.host}${parsed.pathname}`).toBe(`${new URL(database.url).host}${new URL(database.url).pathname}`);
    const [stored] = await database.sql<{ password: string; login: boolean; superuser: boolean }[]>`
      select rolpassword as password, rolcanlogin as login, rolsuper as superuser from pg_authid where rolname = ${ROLE}`;
    expect(stored).toMatchObject({ login: true, superuser: false });
    expect(stored!.password).toMatch(/^SCRAM-SHA-256\$4096:/);
    // Postgres stored what was sent: the verifier of the URL's password, never the password itself.
    const salt = Buffer.from(/^SCRAM-SHA-256\$4096:([^$]+)\$/.exec(stored!.password)![1]!, 'base64');
    expect(scramVerifier(decodeURIComponent(parsed.password), salt)).toBe(stored!.password);

    const reader = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const [who] = await reader<{ user: string }[]>`select current_user as user`;
      expect(who!.user).toBe(ROLE);
      await expect(reader`select count(*) from latest_portfolio`).resolves.toHaveLength(1);
      await expect(reader`select count(*) from token_prices`).resolves.toHaveLength(1);
      await expect(reader`select count(*) from watched_addresses`).rejects.toThrow(/permission denied/);
      await expect(reader`insert into protocols (protocol_id, name) values ('x', 'x')`).rejects.toThrow(
        /permission denied/,
      );
    } finally {
      await reader.end();
    }

    // Again: the role is taken over with a new password.
    const again = new URL(await createReaderLogin(database, database.url, ROLE));
    expect(again.password).not.toBe(parsed.password);
  });
});
