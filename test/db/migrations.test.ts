import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureDatabase, MIGRATIONS_FOLDER, runMigrations } from '../../src/db/migrate.ts';
import { listWatchedAddresses } from '../../src/db/index.ts';
import { nftJobs, positionJobs } from '../../src/scheduler/job-builders.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { migratedBefore } from '../support/migrated-before.ts';

const TABLES = [
  'watched_tokens',
  'watched_addresses',
  'token_catalog',
  'price_sources',
  'token_price_points',
  'protocols',
  'positions',
  'position_tokens',
  'position_snapshot_points',
  'position_refreshes',
  'nft_collections',
  'nft_holding_snapshots',
  'nft_tokens',
  'nft_refreshes',
  'ingestion_runs',
  'raw_responses',
  'quarantined_payloads',
  'dataset_watermarks',
];
const VIEWS = [
  'tokens',
  'token_prices',
  'latest_token_prices',
  'token_prices_daily_ohlc',
  'position_snapshots',
  'position_amounts',
  'position_farming',
  'latest_portfolio',
  'position_pnl',
  'nft_pnl',
  'dataset_freshness',
  'position_refresh_values',
  'nft_refresh_values',
];
const PARTITIONED = ['token_price_points', 'position_snapshot_points', 'nft_holding_snapshots'];

/** Rows as JSON text in one order (the columns of a view may come in another order than the old table's). */
function sortedRows(rows: Record<string, unknown>[]): string[] {
  return rows
    .map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b)))))
    .sort();
}

/**
 * The public schema as the catalog describes it: every relation with its kind, columns and types,
 * every index, constraint and function, one line each, sorted.
 */
async function schemaOf(database: Pick<TestDatabase, 'sql'>): Promise<string[]> {
  const rows = await database.sql<{ line: string }[]>`
    select c.relname || ' ' || c.relkind::text || ' ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) as line
    from pg_class c join pg_namespace n on n.oid = c.relnamespace join pg_attribute a on a.attrelid = c.oid
    where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped
    union all
    select 'index ' || indexname || ' ' || indexdef from pg_indexes where schemaname = 'public'
    union all
    select 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    from pg_constraint where connamespace = 'public'::regnamespace
    union all
    select 'function ' || p.oid::regprocedure from pg_proc p where p.pronamespace = 'public'::regnamespace`;
  return rows.map((row) => row.line).sort();
}

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
    const packed =
      await database.sql`select relname, reloptions from pg_class where relname in ('positions', 'nft_tokens') order by 1`;
    expect(packed).toEqual([
      { relname: 'nft_tokens', reloptions: ['fillfactor=50'] },
      { relname: 'positions', reloptions: ['fillfactor=50'] },
    ]);
  });

  it('are journaled in number order, each later than the one before, each snapshot after the previous one', () => {
    // Drizzle's migrator applies only the migrations whose `when` is after the last applied one's: a
    // migration journaled with an earlier `when` than its predecessor is skipped on upgrade.
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as {
      entries: { idx: number; when: number; tag: string }[];
    };
    const { entries } = journal;
    for (const [i, entry] of entries.entries()) {
      expect(entry.tag.startsWith(String(entry.idx).padStart(4, '0')), entry.tag).toBe(true);
      if (i === 0) continue;
      expect(entry.idx, entry.tag).toBeGreaterThan(entries[i - 1]!.idx);
      expect(entry.when, entry.tag).toBeGreaterThan(entries[i - 1]!.when);
      const snapshot = (idx: number) =>
        JSON.parse(
          readFileSync(join(MIGRATIONS_FOLDER, `meta/${String(idx).padStart(4, '0')}_snapshot.json`), 'utf8'),
        ) as { id: string; prevId: string };
      expect(snapshot(entry.idx).prevId, entry.tag).toBe(snapshot(entries[i - 1]!.idx).id);
    }
  });

  it('run concurrently on a database that does not exist yet: every run creates or finds it and succeeds, each migration applied once', async () => {
    const url = new URL(inject('pgAdminUrl'));
    url.pathname = `/chaintap_test_missing_${randomBytes(6).toString('hex')}`;
    const fresh = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      // Each run has connections of its own, as separate `chaintap migrate` processes would: all
      // find the database missing, and race to create it.
      const runs = await Promise.allSettled(
        [1, 2, 3].map(async () => {
          const created = await ensureDatabase(url.toString());
          await runMigrations(url.toString());
          return created;
        }),
      );
      expect(runs.map((run) => (run.status === 'rejected' ? String(run.reason) : run.status))).toEqual([
        'fulfilled',
        'fulfilled',
        'fulfilled',
      ]);
      expect(runs.filter((run) => run.status === 'fulfilled' && run.value)).toHaveLength(1);
      // The journal holds each migration of the folder once.
      const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as {
        entries: { when: number }[];
      };
      const applied = await fresh<{ created_at: string; n: number }[]>`
        select created_at::text, count(*)::int as n from drizzle.__drizzle_migrations group by 1 order by 1`;
      expect(applied).toEqual(
        journal.entries
          .map((entry) => ({ created_at: String(entry.when), n: 1 }))
          .sort((a, b) => a.created_at.localeCompare(b.created_at)),
      );
      // And the schema is the one a single run builds (this file's database: migrated by the first
      // test, else now).
      await runMigrations(database.url);
      expect(await schemaOf({ sql: fresh })).toEqual(await schemaOf(database));
    } finally {
      await fresh.end();
      const admin = postgres(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
      await admin.unsafe(`drop database if exists "${url.pathname.slice(1)}" with (force)`);
      await admin.end();
    }
  });

  it('create chaintap_reader with SELECT on every data table and view, and nothing more', async () => {
    const [role] = await database.sql`select rolcanlogin from pg_roles where rolname = 'chaintap_reader'`;
    expect(role).toEqual({ rolcanlogin: false });
    // The operational tables are chaintap_operator's alone since 0012 (test/db/roles.test.ts).
    const operational = [
      'watched_tokens',
      'watched_addresses',
      'ingestion_runs',
      'raw_responses',
      'quarantined_payloads',
    ];
    for (const relation of [...TABLES, ...VIEWS]) {
      const [grant] = await database.sql`
        select has_table_privilege('chaintap_reader', ${`public.${relation}`}, 'SELECT') as can_select,
               has_table_privilege('chaintap_reader', ${`public.${relation}`}, 'INSERT') as can_insert`;
      expect(grant, relation).toEqual({ can_select: !operational.includes(relation), can_insert: false });
    }
  });

  it('let chaintap_reader read a partition created later, through its parent and directly', async () => {
    await database.sql`select chaintap_ensure_month_partition('token_price_points', '2031-07-01')`;
    const [grant] =
      await database.sql`select has_table_privilege('chaintap_reader', 'public.token_price_points_p2031_07', 'SELECT') as ok`;
    expect(grant).toEqual({ ok: true });
    await database.sql.begin(async (sql) => {
      await sql`set local role chaintap_reader`;
      await expect(sql`select count(*)::int as n from token_prices`).resolves.toEqual([{ n: 0 }]);
      await expect(sql.savepoint((sp) => sp`insert into watched_tokens (coin_type) values (${'x'})`)).rejects.toThrow(
        /permission denied/,
      );
    });
  });

  it('keep the stored prices and token ids of a database migrated before token_catalog (0004)', async () => {
    const { older, cleanup } = await migratedBefore('0004');
    try {
      await older.sql`select chaintap_ensure_month_partition('token_price_points', '2026-11-01')`;
      await older.sql`insert into tokens (coin_type, symbol, decimals, first_seen_at, last_seen_at, last_price_time)
        values ('0x1::a::A', 'A', 9, '2026-11-01', '2026-11-02', '2026-11-02'), ('0x2::b::B', 'B', 6, '2026-11-01', '2026-11-03', null)`;
      await older.sql`insert into token_price_points (price_time, token_id, fetch_delay_s, source_id, price, price_24h_ago)
        values ('2026-11-02', 1, 3, null, 1.5, null)`;
      await runMigrations(older.url);
      await expect(
        older.sql`select coin_type, id, symbol, first_seen_at, last_seen_at from tokens order by id`,
      ).resolves.toEqual([
        {
          coin_type: '0x1::a::A',
          id: 1,
          symbol: 'A',
          first_seen_at: new Date('2026-11-01'),
          last_seen_at: new Date('2026-11-02'),
        },
        {
          coin_type: '0x2::b::B',
          id: 2,
          symbol: 'B',
          first_seen_at: new Date('2026-11-01'),
          last_seen_at: new Date('2026-11-03'),
        },
      ]);
      await expect(older.sql`select coin_type, price, fetched_at from token_prices`).resolves.toEqual([
        { coin_type: '0x1::a::A', price: '1.5', fetched_at: new Date('2026-11-02T00:00:03Z') },
      ]);
    } finally {
      await cleanup();
    }
  });

  it('keep the position history of a database migrated before the compact snapshots (0006), row for row', async () => {
    const { older, cleanup } = await migratedBefore('0006');
    const views = {
      // The columns position_snapshots had before 0014 (which appended the worth columns).
      snapshots:
        'select owner, position_id, snapshot_at, fee, input_value, yield_collected_value, current_value, current_yield_value, extra from position_snapshots order by owner, position_id, snapshot_at',
      amounts: 'select * from position_amounts',
      farming: 'select * from position_farming',
      // The columns position_pnl had before 0006 (0010 added upstream_position_id and parent_position_id).
      pnl: 'select owner, position_id, protocol_id, type, chain, snapshot_at, input_value, yield_collected_value, current_value, current_yield_value, pnl from position_pnl order by owner, position_id, snapshot_at',
      // The columns latest_portfolio had before 0006 (0008 added nft_unvalued_collections).
      portfolio:
        'select owner, positions_value, nft_value, total_value, positions_snapshot_at, nft_snapshot_at from latest_portfolio order by owner',
    };
    // Before 0006 amounts and farming name their snapshot by its id.
    const ownedBy = (table: string) =>
      `select s.owner, s.position_id, c.* from ${table} c join position_snapshots s on s.id = c.snapshot_id and s.snapshot_at = c.snapshot_at`;
    const viewsBefore = {
      ...views,
      snapshots: 'select * from position_snapshots order by owner, position_id, snapshot_at',
      amounts: ownedBy('position_amounts'),
      farming: ownedBy('position_farming'),
    };
    try {
      const t1 = '2026-10-31T23:45:00Z';
      const t2 = '2026-11-01T00:00:00Z';
      for (const month of ['2026-10-01', '2026-11-01']) {
        for (const table of ['position_snapshots', 'position_amounts', 'position_farming']) {
          await older.sql`select chaintap_ensure_month_partition(${table}, ${month}::date)`;
        }
      }
      await older.sql`insert into positions (owner, position_id, chain, type, first_seen_at, last_seen_at)
        values ('0xa', 'p1', 'sui', 'staking', ${t1}, ${t2}), ('0xa', 'p2', 'sui', 'vault', ${t1}, ${t1}), ('0xb', 'p1', 'sui', 'perp', ${t2}, ${t2})`;
      await older.sql`insert into position_refreshes (owner, snapshot_at, complete, position_count) values ('0xa', ${t1}, true, 2), ('0xa', ${t2}, true, 1), ('0xb', ${t2}, true, 1)`;
      const snapshots = await older.sql<{ id: string; owner: string; position_id: string; snapshot_at: Date }[]>`
        insert into position_snapshots (owner, position_id, snapshot_at, fee, input_value, yield_collected_value, current_value, current_yield_value, extra)
        values ('0xa', 'p1', ${t1}, 0.5, 10, 0, 12, 1, '{"validator":"v"}'), ('0xa', 'p1', ${t2}, 0.5, 10, 0, 13, null, null),
               ('0xa', 'p2', ${t1}, null, 1, 2, null, null, '{"a":[1,2]}'), ('0xb', 'p1', ${t2}, 1, 100, 0, 90, 0, null)
        returning id::text, owner, position_id, snapshot_at`;
      const id = (owner: string, positionId: string, at: string) =>
        snapshots.find(
          (s) => s.owner === owner && s.position_id === positionId && s.snapshot_at.getTime() === Date.parse(at),
        )!.id;
      await older.sql`insert into position_amounts (snapshot_id, snapshot_at, kind, idx, token, token_symbol, amount, value, token_info, extra) values
        (${id('0xa', 'p1', t1)}, ${t1}, 'input', 0, '0x2::sui::SUI', 'SUI', 10, 10, '{"coinType":"0x2::sui::SUI","symbol":"SUI"}', null),
        (${id('0xa', 'p1', t1)}, ${t1}, 'input', 1, null, null, 1.50, null, null, '{"note":"x"}'),
        (${id('0xa', 'p1', t1)}, ${t1}, 'current_token', 0, '0x2::sui::SUI', 'SUI', 12, 12, null, null),
        (${id('0xa', 'p1', t1)}, ${t1}, 'current_yield', 0, '0x2::sui::SUI', null, 1, 1, null, null),
        (${id('0xa', 'p1', t2)}, ${t2}, 'current_token', 0, '0x2::sui::SUI', 'SUI', 13, 13, null, null),
        (${id('0xb', 'p1', t2)}, ${t2}, 'input', 0, '0xabc', null, 100, 100, null, null)`;
      await older.sql`insert into position_farming (snapshot_id, snapshot_at, idx, base_apr, rewards_apr, total_apr, total_apy, rewards, extra) values
        (${id('0xa', 'p1', t1)}, ${t1}, 0, 0.1, 0, 0.1, 0.105, '[[1,2],{"a":null}]', null),
        (${id('0xa', 'p1', t1)}, ${t1}, 1, null, null, null, null, '7', '{"boost":2}'),
        (${id('0xb', 'p1', t2)}, ${t2}, 0, 1, 2, 3, 4, null, null)`;
      const before = Object.fromEntries(
        await Promise.all(
          Object.entries(viewsBefore).map(async ([name, query]) => [name, await older.sql.unsafe(query)]),
        ),
      );

      await runMigrations(older.url);
      const after = Object.fromEntries(
        await Promise.all(Object.entries(views).map(async ([name, query]) => [name, await older.sql.unsafe(query)])),
      );
      // Gone with the compact layout: the snapshots' surrogate id and the children's reference to it.
      const without = (rows: Record<string, unknown>[], ...columns: string[]) =>
        rows.map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !columns.includes(column))));
      expect(after.snapshots).toEqual(without(before.snapshots, 'id'));
      expect(sortedRows(after.amounts)).toEqual(sortedRows(without(before.amounts, 'snapshot_id')));
      expect(sortedRows(after.farming)).toEqual(sortedRows(without(before.farming, 'snapshot_id')));
      expect(after.pnl).toEqual(before.pnl);
      // 0014 values 0xa's latest refresh (p1: current 13, yield unknown) as unknown, left out of the
      // sum, instead of counting its known part; every other figure is as before.
      const [a, ...others] = after.portfolio;
      const [aBefore, ...othersBefore] = before.portfolio;
      expect(others).toEqual(othersBefore);
      expect(aBefore).toMatchObject({ owner: '0xa', positions_value: '13', total_value: '13' });
      expect(a).toEqual({ ...aBefore, positions_value: '0', total_value: '0' });
      // 0010: a position stored before keeps its upstream id as its key.
      expect(
        await older.sql`select position_id, upstream_position_id, parent_position_id from positions order by owner, position_id`,
      ).toEqual([
        { position_id: 'p1', upstream_position_id: 'p1', parent_position_id: null },
        { position_id: 'p2', upstream_position_id: 'p2', parent_position_id: null },
        { position_id: 'p1', upstream_position_id: 'p1', parent_position_id: null },
      ]);
      expect(after.amounts).toHaveLength(6);
      expect(after.farming).toHaveLength(3);
    } finally {
      await cleanup();
    }
  });
  it('keep the watchlist and its behaviour, and value the stored history by the worth rule (0014)', async () => {
    const { older, cleanup } = await migratedBefore('0014');
    try {
      const [a, b] = [`0x${'a1'.repeat(32)}`, `0x${'b2'.repeat(32)}`];
      await older.sql`insert into watched_addresses (address, chain, protocols, nft_chain, include_pnl) values
        (${a}, 'sui', '{cetus,navi}', 'SUI', true), (${b}, null, null, 'ALL', false)`;
      const watchlistBefore = await older.sql`select * from watched_addresses order by address`;
      const t = '2026-11-21T12:00:00Z';
      await older.sql`select chaintap_ensure_month_partition('position_snapshot_points', '2026-11-01')`;
      // A Borrow (its collateral nested in its input, its health factor in the first snapshot's extra),
      // a Lending with yield, and a default-world lending_borrow with a plain input.
      await older.sql`insert into positions (owner, position_id, upstream_position_id, parent_position_id, chain, type, first_seen_at, last_seen_at, snapshot_extra) values
        (${a}, 'loan', 'loan', null, 'SUI', 'Borrow', ${t}, ${t}, '{"current": {"healthy": "1.85"}}'),
        (${a}, 'loan/input/0', 'l0', 'loan', 'SUI', 'Lending', ${t}, ${t}, null),
        (${a}, 'lend', 'lend', null, 'SUI', 'Lending', ${t}, ${t}, null),
        (${a}, 'old', 'old', null, 'sui', 'lending_borrow', ${t}, ${t}, '{"healthFactor": {"value": 2.5}}')`;
      await older.sql`insert into position_refreshes (owner, snapshot_at, complete, position_count) values (${a}, ${t}, true, 4)`;
      await older.sql`
        insert into position_snapshot_points (position_key, snapshot_at, fee, input_value, yield_collected_value, current_value, current_yield_value, extra)
        select p.position_key, ${t}, 0, v.input, v.collected, v.current, v.yield, null
        from (values ('loan', 0, 0, 8000, 1.5), ('loan/input/0', 9990, 0, 9999.5, 0.5), ('lend', 1000, 3.25, 1012.5, 12.5), ('old', 100, 0, 101, 1))
          as v(id, input, collected, current, yield)
        join positions p on p.owner = ${a} and p.position_id = v.id`;

      await runMigrations(older.url);
      expect(
        await older.sql`select address, chain, protocols, nft_chain, include_pnl, added_at from watched_addresses order by address`,
      ).toEqual(watchlistBefore);
      const watched = await listWatchedAddresses(older);
      expect(watched.map((w) => w.datasets)).toEqual([
        ['positions', 'nfts'],
        ['positions', 'nfts'],
      ]);
      // Both datasets planned for both addresses, as before.
      const tick = new Date(t);
      expect(positionJobs(watched, tick, false).map((job) => job.target)).toEqual([a, b]);
      expect(nftJobs(watched, tick).map((job) => job.target)).toEqual([a, b]);
      expect(
        await older.sql`select position_id, asset_value, debt_value, net_value, pnl, health_factor from position_pnl order by position_id`,
      ).toEqual([
        {
          position_id: 'lend',
          asset_value: '1025.0',
          debt_value: '0',
          net_value: '1025.0',
          pnl: '28.25',
          health_factor: null,
        },
        {
          position_id: 'loan',
          asset_value: '10000.0',
          debt_value: '8001.5',
          net_value: '1998.5',
          pnl: null,
          health_factor: '1.85',
        },
        {
          position_id: 'loan/input/0',
          asset_value: '10000.0',
          debt_value: '0',
          net_value: '10000.0',
          pnl: '10.0',
          health_factor: null,
        },
        { position_id: 'old', asset_value: '100', debt_value: '102', net_value: '-2', pnl: null, health_factor: '2.5' },
      ]);
      expect(
        await older.sql`select positions_value, positions_asset_value, positions_debt_value from latest_portfolio where owner = ${a}`,
      ).toEqual([{ positions_value: '3021.5', positions_asset_value: '11125.0', positions_debt_value: '8103.5' }]);
    } finally {
      await cleanup();
    }
  });

  it('keep the stored prices of a database migrated before prices of every chain (0020), as SUI prices of price requests', async () => {
    const { older, cleanup } = await migratedBefore('0020');
    try {
      const sui = `0x${'0'.repeat(63)}2::sui::SUI`;
      await older.sql`select chaintap_ensure_month_partition('token_price_points', '2026-11-01')`;
      await older.sql`insert into token_catalog (coin_type, symbol, decimals, first_seen_at) values (${sui}, 'SUI', 9, '2026-11-01')`;
      await older.sql`insert into token_price_points (price_time, token_id, fetch_delay_s, source_id, price, price_24h_ago)
        values ('2026-11-02', 1, 3, null, 3.25, null)`;
      await runMigrations(older.url);
      await expect(older.sql`select coin_type, chain, price, origin from token_prices`).resolves.toEqual([
        { coin_type: sui, chain: 'sui', price: '3.25', origin: 'prices' },
      ]);
      await expect(older.sql`select coin_type, chain, price, origin from latest_token_prices`).resolves.toEqual([
        { coin_type: sui, chain: 'sui', price: '3.25', origin: 'prices' },
      ]);
      // The same token id may now be a token of another chain too: the key is (coin_type, chain).
      await older.sql`insert into token_catalog (coin_type, chain, first_seen_at) values (${sui}, 'aptos', '2026-11-01')`;
      await expect(older.sql`select chain from tokens where coin_type = ${sui} order by chain`).resolves.toEqual([
        { chain: 'aptos' },
        { chain: 'sui' },
      ]);
    } finally {
      await cleanup();
    }
  });
});
