import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../../src/db/migrate.ts';
import { seedStatusRows } from '../ops/status-seed.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { migratedBefore } from '../support/migrated-before.ts';
import { commit } from './job-helpers.ts';

/** What BI must not read: raw bodies, quarantine, run records, schema drifts, the watchlist (0012). */
const OPERATIONAL_0012 = [
  'raw_responses',
  'raw_body_dictionaries',
  'quarantined_payloads',
  'ingestion_runs',
  'schema_drifts',
  'watched_tokens',
  'watched_addresses',
];
/**
 * Every table chaintap_reader must not read. A new table is the operator's only until its migration
 * grants it to chaintap_reader: list it here, or grant it, or the reader test below fails.
 */
const OPERATIONAL = [...OPERATIONAL_0012, 'alert_events', 'alert_states', 'refresh_targets'];
const ROLES = ['chaintap_reader', 'chaintap_operator'] as const;
type Role = (typeof ROLES)[number];

let database: TestDatabase;
let relations: string[];

beforeAll(async () => {
  database = await createTestDatabase();
  // Rows in the operational tables (runs, quarantine, watchlist, a raw body) and the data (prices).
  await seedStatusRows(database);
  await commit(database, 'prices', 'batch-9', new Date('2026-11-21T12:00:00Z'), async () => ({}));
  const rows = await database.sql<{ name: string }[]>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'f') and not c.relispartition
    order by 1`;
  relations = rows.map((row) => row.name);
});

afterAll(() => database.drop());

/** What `select count(*)` from each relation gives as `role`: the count, or the error's message. */
async function readAs(role: Role, names: string[]): Promise<Record<string, number | string>> {
  const result: Record<string, number | string> = {};
  await database.sql.begin(async (sql) => {
    await sql.unsafe(`set local role ${role}`);
    for (const name of names) {
      try {
        result[name] = await sql.savepoint(async (sp) => {
          const [row] = await sp.unsafe<{ n: number }[]>(`select count(*)::int as n from public."${name}"`);
          return row!.n;
        });
      } catch (error) {
        result[name] = (error as Error).message;
      }
    }
  });
  return result;
}

describe('chaintap_reader and chaintap_operator', () => {
  it('exist and cannot log in (grant them to login roles)', async () => {
    const roles = await database.sql`
      select rolname, rolcanlogin, rolsuper, rolcreaterole from pg_roles where rolname in ('chaintap_reader', 'chaintap_operator') order by 1`;
    expect(roles).toEqual([
      { rolname: 'chaintap_operator', rolcanlogin: false, rolsuper: false, rolcreaterole: false },
      { rolname: 'chaintap_reader', rolcanlogin: false, rolsuper: false, rolcreaterole: false },
    ]);
  });

  it('chaintap_reader reads every data table and view, and none of the operational tables', async () => {
    for (const table of OPERATIONAL_0012) expect(relations, table).toContain(table);
    const read = await readAs('chaintap_reader', relations);
    for (const name of relations) {
      if (OPERATIONAL.includes(name)) expect(read[name], name).toMatch(/permission denied/);
      else expect(read[name], name).toEqual(expect.any(Number));
    }
    // The seeded prices, through the views BI uses.
    expect(read.token_prices).toBeGreaterThan(0);
    expect(read.latest_token_prices).toBe(2);
    expect(read.dataset_freshness).toBe(4); // three seeded watermarks and the committed job's
  });

  it('chaintap_operator reads every table and view, the operational ones with their rows', async () => {
    const read = await readAs('chaintap_operator', relations);
    for (const name of relations) expect(read[name], name).toEqual(expect.any(Number));
    for (const name of ['raw_responses', 'quarantined_payloads', 'ingestion_runs', 'watched_tokens']) {
      expect(read[name], name).toBeGreaterThan(0);
    }
  });

  it('neither can write a row or create a table', async () => {
    for (const role of ROLES) {
      const [writable] = await database.sql`
        select array_agg(c.relname order by c.relname) filter (
                 where has_table_privilege(${role}, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
               ) as names
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'f')`;
      expect(writable, role).toEqual({ names: null });
      await database.sql.begin(async (sql) => {
        await sql.unsafe(`set local role ${role}`);
        await expect(
          sql.savepoint((sp) => sp`insert into token_catalog (coin_type) values ('0x9::x::X')`),
        ).rejects.toThrow(/permission denied/);
        await expect(sql.savepoint((sp) => sp`create table public.intruder (x int)`)).rejects.toThrow(
          /permission denied/,
        );
      });
    }
  });

  it('no view chaintap_reader reads selects from raw bodies, quarantine, runs or drifts', async () => {
    const sources = await database.sql<{ view: string; source: string }[]>`
      select distinct v.relname as view, t.relname as source
      from pg_depend d
      join pg_rewrite r on r.oid = d.objid
      join pg_class v on v.oid = r.ev_class
      join pg_class t on t.oid = d.refobjid
      where v.relkind = 'v' and v.relnamespace = 'public'::regnamespace and t.oid <> v.oid
        and has_table_privilege('chaintap_reader', v.oid, 'SELECT')`;
    expect(sources.length).toBeGreaterThan(10);
    // latest_portfolio lists the watched addresses, as owners: that much of the watchlist is data.
    const sensitive = OPERATIONAL.filter((name) => !name.startsWith('watched_'));
    expect(sources.filter((row) => sensitive.includes(row.source))).toEqual([]);
  });

  it('a table created later is the operator’s only; a partition created later is read like its parent', async () => {
    // Created by the role that ran the migrations, as a later migration would.
    await database.sql`create table public.later_operational (x int)`;
    await database.sql`select chaintap_ensure_month_partition('token_price_points', '2032-03-01')`;
    expect((await readAs('chaintap_operator', ['later_operational'])).later_operational).toBe(0);
    expect((await readAs('chaintap_reader', ['later_operational'])).later_operational).toMatch(/permission denied/);
    expect(await readAs('chaintap_reader', ['token_price_points_p2032_03'])).toEqual({
      token_price_points_p2032_03: 0,
    });
    await database.sql`drop table public.later_operational`;
  });
});

describe('migration 0012 on a database migrated before it', () => {
  it('takes the operational tables from chaintap_reader and CREATE on public from PUBLIC (granted before Postgres 15)', async () => {
    const { older, cleanup } = await migratedBefore('0012');
    try {
      // What Postgres 14 and older grant every database.
      await older.sql`grant create on schema public to public`;
      const privileges = () => older.sql`
        select has_schema_privilege('public', 'public', 'CREATE') as public_creates,
               has_table_privilege('chaintap_reader', 'public.raw_responses', 'SELECT') as reader_reads_raw,
               has_table_privilege('chaintap_reader', 'public.watched_addresses', 'SELECT') as reader_reads_watchlist,
               has_table_privilege('chaintap_reader', 'public.token_catalog', 'SELECT') as reader_reads_tokens`;
      expect(await privileges()).toEqual([
        { public_creates: true, reader_reads_raw: true, reader_reads_watchlist: true, reader_reads_tokens: true },
      ]);
      await runMigrations(older.url);
      expect(await privileges()).toEqual([
        { public_creates: false, reader_reads_raw: false, reader_reads_watchlist: false, reader_reads_tokens: true },
      ]);
    } finally {
      await cleanup();
    }
  });
});
