import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { addWatchedTokens, writePositions } from '../../src/db/index.ts';
import { runQuery } from '../../src/db/query.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics, type Metrics } from '../../src/runtime/metrics.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commit, positionRows, SUI, wirePosition } from './job-helpers.ts';

const TICK = new Date('2026-11-21T12:00:00Z');
/** A real Postgres error with the SQLSTATE of a serialization failure. */
const SERIALIZATION_FAILURE = `do $$ begin raise exception 'could not serialize access' using errcode = '40001'; end $$`;

let test: TestDatabase;
let database: Database;
let metrics: Metrics;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
  await test?.drop();
});
beforeEach(async () => {
  await database?.close();
  metrics = createMetrics({ defaultMetrics: false });
  logLines.length = 0;
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  database = createDatabase(test.url, { max: 2, metrics, logger: createLogger({ level: 'debug', destination }) });
});

/** Observations of chaintap_db_query_duration_seconds per "store outcome". */
async function observations(): Promise<Record<string, number>> {
  const { values } = await metrics.dbQueryDuration.get();
  return Object.fromEntries(
    values
      .filter((value) => value.metricName === 'chaintap_db_query_duration_seconds_count')
      .map((value) => [`${value.labels.store} ${value.labels.outcome}`, value.value]),
  );
}

describe('runQuery', () => {
  it('observes a job transaction once, named after its dataset, and a single statement by its store', async () => {
    const rows = positionRows([wirePosition('p1', { input: 1 })], TICK);
    const written = await commit(database, 'positions', 'owner-1', TICK, (tx) =>
      writePositions(tx, rows, { owner: rows.positions[0]!.owner, snapshotAt: TICK, complete: true }),
    );
    expect(written.byTable.positions).toBe(1);
    await addWatchedTokens(database, [SUI]);
    expect(await observations()).toEqual({ 'positions.write ok': 1, 'watchlist.add ok': 1 });
    const { values } = await metrics.dbQueryDuration.get();
    const sum = values.find(
      (value) =>
        value.metricName === 'chaintap_db_query_duration_seconds_sum' && value.labels.store === 'positions.write',
    );
    expect(sum!.value).toBeGreaterThan(0);
  });

  it('runs a serialization failure again, observing the operation once', async () => {
    let attempts = 0;
    const result = await runQuery(database, 'watchlist.list', () =>
      ++attempts === 1 ? database.sql.unsafe(SERIALIZATION_FAILURE) : database.sql`select 1 as one`,
    );
    expect(result).toEqual([{ one: 1 }]);
    expect(attempts).toBe(2);
    expect(await observations()).toEqual({ 'watchlist.list ok': 1 });
    expect(logLines).toMatchObject([{ level: 'debug', store: 'watchlist.list', sqlState: '40001', attempt: 1 }]);
  });

  it('gives up on a serialization failure after four attempts', async () => {
    let attempts = 0;
    const failing = runQuery(database, 'watchlist.list', () => {
      attempts++;
      return database.sql.unsafe(SERIALIZATION_FAILURE);
    });
    await expect(failing).rejects.toMatchObject({ code: '40001' });
    expect(attempts).toBe(4);
    expect(await observations()).toEqual({ 'watchlist.list error': 1 });
  });

  it('observes, logs once and rethrows any other failure, without the SQL text or its parameters', async () => {
    const coinType = '0x7::never_logged::PARAMETER';
    const insert = () => database.sql`insert into watched_tokens (coin_type) values (${coinType})`;
    await runQuery(database, 'watchlist.add', insert);
    let attempts = 0;
    const failing = runQuery(database, 'watchlist.add', () => {
      attempts++;
      return insert();
    });
    // The driver's error, as the caller gets it, carries the SQL and its parameters.
    await expect(failing).rejects.toMatchObject({ code: '23505', parameters: [coinType] });
    expect(attempts).toBe(1);
    expect(await observations()).toEqual({ 'watchlist.add ok': 1, 'watchlist.add error': 1 });
    const warnings = logLines.filter((line) => line.level === 'warn');
    expect(warnings).toEqual([
      expect.objectContaining({
        msg: 'database operation failed',
        store: 'watchlist.add',
        sqlState: '23505',
        attempts: 1,
      }),
    ]);
    expect(warnings[0]!.err).toMatch(/^PostgresError 23505: duplicate key value violates unique constraint/);
    expect(JSON.stringify(logLines)).not.toContain(coinType);
    expect(JSON.stringify(logLines)).not.toMatch(/insert into/i);
  });
});
