import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTokenPrices } from '../../src/db/index.ts';
import { knownPartitions } from '../../src/db/known-partitions.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commit, priceRows, USDC } from './job-helpers.ts';

const price = (at: Date) => ({
  contract_address: USDC,
  symbol: 'USDC',
  price: 1.0001,
  last24hPrice: 1,
  timestamp: at.getTime() / 1000,
  decimals: 6,
  source: 'pyth',
});
const MARCH = (day: number) => new Date(Date.UTC(2021, 2, day));
const MAY = new Date(Date.UTC(2021, 4, 3));

describe('known month partitions', () => {
  let database: TestDatabase;
  let ensureDefinition: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    const [row] = await database.sql<{ definition: string }[]>`
      select pg_get_functiondef('chaintap_ensure_month_partition(text, date)'::regprocedure) as definition`;
    ensureDefinition = row!.definition;
  });
  afterAll(() => database.drop());

  const write = (at: Date, target: string) =>
    commit(database, 'prices', target, at, (tx) => writeTokenPrices(tx, priceRows([price(at)], at)));
  const stored = async (at: Date) =>
    (await database.sql`select 1 from token_price_points where price_time = ${at}`).length;
  /** Every call of the ensure function fails from now on (until restoreEnsure). */
  const breakEnsure = () =>
    database.sql.unsafe(`
    create or replace function chaintap_ensure_month_partition(parent text, month date) returns boolean
    language plpgsql as $$ begin raise exception 'ensure called for %', month; end $$`);
  const restoreEnsure = () => database.sql.unsafe(ensureDefinition);

  it('ensures a month once per process, and again only for a month it has not seen', async () => {
    await write(MARCH(1), 'first');
    await breakEnsure();
    try {
      await write(MARCH(2), 'same-month');
      expect(await stored(MARCH(2))).toBe(1);
      await expect(write(MAY, 'other-month')).rejects.toThrow(/ensure called for 2021-05-01/);
      expect(await stored(MAY)).toBe(0);
    } finally {
      await restoreEnsure();
    }
  });

  it('knows a partition a transaction ensured only once it committed', async () => {
    const JULY = new Date(Date.UTC(2021, 6, 4));
    const AUGUST = new Date(Date.UTC(2021, 7, 4));
    let written: () => void = () => undefined;
    const wasWritten = new Promise<void>((resolve) => (written = resolve));
    let commit: () => void = () => undefined;
    const mayCommit = new Promise<void>((resolve) => (commit = resolve));
    const open = withTransaction(database, 'prices.write', async (tx) => {
      await writeTokenPrices(tx, priceRows([price(JULY)], JULY));
      written();
      await mayCommit;
    });
    await wasWritten;
    // Other transactions cannot see it yet: they must ensure it themselves.
    expect(knownPartitions(database).has('token_price_points/2021-07-01')).toBe(false);
    commit();
    await open;
    expect(knownPartitions(database).has('token_price_points/2021-07-01')).toBe(true);
    await expect(
      withTransaction(database, 'prices.write', async (tx) => {
        await writeTokenPrices(tx, priceRows([price(AUGUST)], AUGUST));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(knownPartitions(database).has('token_price_points/2021-08-01')).toBe(false);
  });

  it('makes a known partition again when it was detached and dropped since', async () => {
    await database.sql`alter table token_price_points detach partition token_price_points_p2021_03`;
    await database.sql`drop table token_price_points_p2021_03`;
    await write(MARCH(20), 'after-drop');
    expect(await stored(MARCH(20))).toBe(1);
    const [run] = await database.sql`
      select status, attempts from ingestion_runs where dataset = 'prices' and target = 'after-drop'`;
    expect(run).toEqual({ status: 'succeeded', attempts: 1 });
  });
});
