import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitJob, readRawResponses, recordJobFailure, type RawRecord } from '../../src/db/index.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { simulatedPositions } from '../../src/simulator/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { migratedBefore } from '../support/migrated-before.ts';
import { insertZlibRawBody } from '../support/zlib-raw-body.ts';
import { run } from './job-helpers.ts';

const TICK = new Date('2026-11-21T12:00:00Z');
const OWNER = `0x${'ab'.repeat(32)}`;
const WORLD = { realShapes: true };
/** A real-shapes positions answer, spelled as a server might (spaces, key order): kept byte for byte. */
const ANSWER = JSON.stringify({ data: simulatedPositions(OWNER, TICK.getTime(), undefined, WORLD) }, null, 1);
const HTML = '<html><body><h1>502 Bad Gateway</h1></body></html>\n';

const raw = (body: string, target: string, httpStatus = 200): RawRecord => ({
  dataset: 'positions',
  endpoint: `/v2/address/${target}/positions`,
  target,
  tick: TICK,
  httpStatus,
  body,
  receivedAt: TICK,
});
const sha256 = (body: string) => createHash('sha256').update(body, 'utf8').digest('hex');

describe('raw bodies', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('keeps every body as received, readable from SQL as text and, when it is JSON, as jsonb', async () => {
    await commitJob(database, {
      run: run('positions', OWNER, TICK),
      raw: [raw(ANSWER, OWNER)],
      write: async () => ({}),
    });
    await recordJobFailure(database, {
      run: run('positions', 'html', TICK),
      final: false,
      error: 'HTTP 502',
      httpStatus: 502,
      raw: raw(HTML, 'html', 502),
    });
    const rows = await database.sql<{ target: string; body: string; positions: number | null }[]>`
      select target, body, case when http_status = 200 then jsonb_array_length(body::jsonb -> 'data') end as positions
      from raw_responses order by id`;
    expect(rows).toEqual([
      { target: OWNER, body: ANSWER, positions: (JSON.parse(ANSWER) as { data: unknown[] }).data.length },
      { target: 'html', body: HTML, positions: null },
    ]);
    expect(ANSWER.length).toBeGreaterThan(4096);
  });

  it('compresses bodies with Postgres own TOAST compression, lz4 where the server has it', async () => {
    const [server] = await database.sql<{ lz4: boolean }[]>`
      select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`;
    const [row] = await database.sql<{ method: string; stored: number; length: number }[]>`
      select pg_column_compression(body) as method, pg_column_size(body) as stored, octet_length(body) as length
      from raw_responses where target = ${OWNER}`;
    expect(row!.method).toBe(server!.lz4 ? 'lz4' : 'pglz');
    expect(row!.stored).toBeLessThan(row!.length / 2);
  });

  it('keeps a body with a NUL character, which text cannot hold, as its bytes, and gives it back as received', async () => {
    const body = '{"data": "a\u0000b"} and \u00e9';
    await recordJobFailure(database, {
      run: run('positions', 'nul', TICK),
      final: true,
      error: 'x',
      raw: raw(body, 'nul'),
    });
    await expect(
      database.sql`select body, encode(body_bytes, 'escape') as readable, sha256 from raw_responses where target = 'nul'`,
    ).resolves.toEqual([{ body: null, readable: '{"data": "a\\000b"} and \\303\\251', sha256: sha256(body) }]);
    const [stored] = await readRawResponses(database, { target: 'nul' });
    expect(stored!.body).toBe(body);
  });
});

describe('migration 0017 on a database with raw bodies in the zlib form (0007)', () => {
  it('turns every body into text as received, keeps ids and hashes, drops the dictionaries; a second run changes nothing', async () => {
    const { older, cleanup } = await migratedBefore('0017');
    try {
      const earlier = JSON.stringify({ data: simulatedPositions(OWNER, TICK.getTime() - 900_000, undefined, WORLD) });
      const bodies = [ANSWER, '{"error":"quota"}', 'nul \u0000 in a body 🦆'];
      const ids = [
        await insertZlibRawBody(older.sql, { target: OWNER, tick: TICK, body: bodies[0]!, dictionary: earlier }),
        await insertZlibRawBody(older.sql, { target: 'short', tick: TICK, body: bodies[1]! }),
        await insertZlibRawBody(older.sql, { target: 'nul', tick: TICK, body: bodies[2]! }),
      ];
      await runMigrations(older.url);
      const rows = async () =>
        older.sql<{ id: string; body: string | null; bytes: Buffer | null; zlib: Buffer | null; sha256: string }[]>`
          select id::text, body, body_bytes as bytes, body_zlib as zlib, sha256 from raw_responses order by id`;
      const converted = await rows();
      expect(converted.map((row) => row.id)).toEqual(ids);
      expect(converted.map((row) => row.body)).toEqual([bodies[0], bodies[1], null]);
      expect(converted[2]!.bytes!.toString('utf8')).toBe(bodies[2]);
      expect(converted.map((row) => row.zlib)).toEqual([null, null, null]);
      expect(converted.map((row) => row.sha256)).toEqual(bodies.map(sha256));
      await expect(older.sql`select count(*)::int as n from raw_body_dictionaries`).resolves.toEqual([{ n: 0 }]);
      const read = await readRawResponses(older, {});
      expect(read.map((row) => row.body).reverse()).toEqual(bodies);
      await runMigrations(older.url);
      expect(await rows()).toEqual(converted);
    } finally {
      await cleanup();
    }
  });

  it('converts what workers of the previous release wrote after the migration, on the next run', async () => {
    const { older, cleanup } = await migratedBefore('0017');
    try {
      await runMigrations(older.url);
      const id = await insertZlibRawBody(older.sql, { target: OWNER, tick: TICK, body: ANSWER, dictionary: ANSWER });
      await expect(readRawResponses(older, { ids: [id] })).resolves.toMatchObject([{ body: ANSWER }]);
      await runMigrations(older.url);
      await expect(older.sql`select body from raw_responses where id = ${id}`).resolves.toEqual([{ body: ANSWER }]);
    } finally {
      await cleanup();
    }
  });
});
