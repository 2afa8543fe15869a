import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, runMigrations } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const TABLES = [
  'watched_tokens', 'watched_addresses', 'token_catalog', 'price_sources', 'token_price_points', 'protocols', 'positions', 'position_snapshots',
  'position_amounts', 'position_farming', 'position_refreshes', 'nft_collections', 'nft_holding_snapshots', 'nft_tokens', 'nft_refreshes',
  'ingestion_runs', 'raw_responses', 'quarantined_payloads', 'dataset_watermarks',
];
const VIEWS = ['tokens', 'token_prices', 'latest_token_prices', 'token_prices_daily_ohlc', 'latest_portfolio', 'position_pnl', 'nft_pnl', 'dataset_freshness'];
const PARTITIONED = ['token_price_points', 'position_snapshots', 'position_amounts', 'position_farming', 'nft_holding_snapshots'];

describe('migrations', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(() => database.drop());

  it('build the schema from an empty database and re-apply as a no-op', async () => {
    await runMigrations(database.url);
    const applied = await database.sql`select count(*)::int as n from drizzle.__drizzle_migrations`;
    await runMigrations(database.url);
    await expect(database.sql`select count(*)::int as n from drizzle.__drizzle_migrations`).resolves.toEqual(applied);

    const relations = await database.sql<{ name: string; kind: string }[]>`
      select c.relname as name, c.relkind as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p', 'v') and not c.relispartition`;
    const kinds = Object.fromEntries(relations.map((r) => [r.name, r.kind]));
    for (const table of TABLES) expect(kinds[table], table).toBe(PARTITIONED.includes(table) ? 'p' : 'r');
    for (const view of VIEWS) expect(kinds[view], view).toBe('v');
    const packed = await database.sql`select relname, reloptions from pg_class where relname in ('positions', 'nft_tokens') order by 1`;
    expect(packed).toEqual([{ relname: 'nft_tokens', reloptions: ['fillfactor=50'] }, { relname: 'positions', reloptions: ['fillfactor=50'] }]);
  });

  it('run concurrently from several processes without failing', async () => {
    await Promise.all([runMigrations(database.url), runMigrations(database.url), runMigrations(database.url)]);
  });

  it('create chaintap_reader with SELECT on every table and view, and nothing more', async () => {
    const [role] = await database.sql`select rolcanlogin from pg_roles where rolname = 'chaintap_reader'`;
    expect(role).toEqual({ rolcanlogin: false });
    for (const relation of [...TABLES, ...VIEWS]) {
      const [grant] = await database.sql`
        select has_table_privilege('chaintap_reader', ${`public.${relation}`}, 'SELECT') as can_select,
               has_table_privilege('chaintap_reader', ${`public.${relation}`}, 'INSERT') as can_insert`;
      expect(grant, relation).toEqual({ can_select: true, can_insert: false });
    }
  });

  it('let chaintap_reader read a partition created later, through its parent and directly', async () => {
    await database.sql`select chaintap_ensure_month_partition('token_price_points', '2031-07-01')`;
    const [grant] = await database.sql`select has_table_privilege('chaintap_reader', 'public.token_price_points_p2031_07', 'SELECT') as ok`;
    expect(grant).toEqual({ ok: true });
    await database.sql.begin(async (sql) => {
      await sql`set local role chaintap_reader`;
      await expect(sql`select count(*)::int as n from token_prices`).resolves.toEqual([{ n: 0 }]);
      await expect(sql.savepoint((sp) => sp`insert into watched_tokens (coin_type) values (${'x'})`)).rejects.toThrow(/permission denied/);
    });
  });

  it('keep the stored prices and token ids of a database migrated before token_catalog (0004)', async () => {
    const older = await createTestDatabase({ migrate: false });
    const folder = mkdtempSync(join(tmpdir(), 'chaintap-migrations-'));
    try {
      cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
      const journal = JSON.parse(readFileSync(join(folder, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
      journal.entries = journal.entries.filter((entry) => entry.tag < '0004');
      writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify(journal));
      await runMigrations(older.url, folder);
      await older.sql`select chaintap_ensure_month_partition('token_price_points', '2026-11-01')`;
      await older.sql`insert into tokens (coin_type, symbol, decimals, first_seen_at, last_seen_at, last_price_time)
        values ('0x1::a::A', 'A', 9, '2026-11-01', '2026-11-02', '2026-11-02'), ('0x2::b::B', 'B', 6, '2026-11-01', '2026-11-03', null)`;
      await older.sql`insert into token_price_points (price_time, token_id, fetch_delay_s, source_id, price, price_24h_ago)
        values ('2026-11-02', 1, 3, null, 1.5, null)`;
      await runMigrations(older.url);
      await expect(older.sql`select coin_type, id, symbol, first_seen_at, last_seen_at from tokens order by id`).resolves.toEqual([
        { coin_type: '0x1::a::A', id: 1, symbol: 'A', first_seen_at: new Date('2026-11-01'), last_seen_at: new Date('2026-11-02') },
        { coin_type: '0x2::b::B', id: 2, symbol: 'B', first_seen_at: new Date('2026-11-01'), last_seen_at: new Date('2026-11-03') },
      ]);
      await expect(older.sql`select coin_type, price, fetched_at from token_prices`).resolves.toEqual([
        { coin_type: '0x1::a::A', price: '1.5', fetched_at: new Date('2026-11-02T00:00:03Z') },
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await older.drop();
    }
  });
});
