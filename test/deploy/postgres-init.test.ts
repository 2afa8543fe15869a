import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runMigrations } from '../../src/db/migrate.ts';

/** The compose deployment's Postgres init script, run here against the test cluster with names of its own. */
const SCRIPT = join(import.meta.dirname, '../../docker/postgres-init/10-chaintap-roles.sh');

const admin = new URL(inject('pgAdminUrl'));
const suffix = randomBytes(4).toString('hex');
const names = { database: `chaintap_deploy_${suffix}`, owner: `chaintap_owner_${suffix}`, bi: `chaintap_bi_${suffix}` };
const passwords = { owner: `owner${suffix}`, bi: `bi${suffix}` };

function runScript(environment: Record<string, string>) {
  return spawnSync('sh', [SCRIPT], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      PGHOST: admin.hostname,
      PGPORT: admin.port || '5432',
      PGPASSWORD: decodeURIComponent(admin.password),
      POSTGRES_USER: decodeURIComponent(admin.username),
      CHAINTAP_DB_NAME: names.database,
      CHAINTAP_DB_OWNER: names.owner,
      CHAINTAP_DB_READER_LOGIN: names.bi,
      ...environment,
    },
  });
}

function urlAs(user: string, password: string): string {
  const url = new URL(admin);
  url.username = user;
  url.password = password;
  url.pathname = `/${names.database}`;
  return url.toString();
}

afterAll(async () => {
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  await sql.unsafe(`drop database if exists "${names.database}" with (force)`);
  await sql.unsafe(`drop role if exists "${names.owner}"`);
  await sql.unsafe(`drop role if exists "${names.bi}"`);
  await sql.end();
});

describe('docker/postgres-init', () => {
  it('refuses to run without the passwords', () => {
    const result = runScript({ READER_DB_PASSWORD: passwords.bi });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('CHAINTAP_DB_PASSWORD');
  });

  it('creates an owner role that is no superuser, which migrates and runs the pipeline, and a BI login that reads data only', async () => {
    const result = runScript({ CHAINTAP_DB_PASSWORD: passwords.owner, READER_DB_PASSWORD: passwords.bi });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);

    const ownerUrl = urlAs(names.owner, passwords.owner);
    await runMigrations(ownerUrl);
    const owner = postgres(ownerUrl, { max: 1, onnotice: () => {} });
    const bi = postgres(urlAs(names.bi, passwords.bi), { max: 1, onnotice: () => {} });
    try {
      await expect(
        owner`select rolsuper, rolcreaterole, rolcreatedb from pg_roles where rolname = current_user`,
      ).resolves.toEqual([{ rolsuper: false, rolcreaterole: false, rolcreatedb: false }]);
      // What the workers and the maintenance job do as it: partitions, rows.
      await owner`select chaintap_ensure_month_partition('token_price_points', '2026-11-01')`;
      await owner`insert into watched_tokens (coin_type) values ('0x2::sui::SUI')`;

      await expect(bi`select count(*)::int as n from token_prices`).resolves.toEqual([{ n: 0 }]);
      await expect(bi`select count(*)::int as n from latest_portfolio`).resolves.toEqual([{ n: 0 }]);
      for (const table of ['raw_responses', 'ingestion_runs', 'quarantined_payloads', 'watched_tokens']) {
        await expect(bi.unsafe(`select count(*) from ${table}`), table).rejects.toThrow(/permission denied/);
      }
      await expect(bi`create table intruder (x int)`).rejects.toThrow(/permission denied/);
    } finally {
      await owner.end();
      await bi.end();
    }
  });
});
