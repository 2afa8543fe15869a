import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

let test: TestDatabase;
let database: Database;
const metrics = createMetrics({ defaultMetrics: false });
beforeAll(async () => {
  test = await createTestDatabase({ migrate: false });
  await test.sql`create table lock_order (id int primary key, touched int not null default 0)`;
  await test.sql`insert into lock_order (id) values (1), (2)`;
  database = createDatabase(test.url, { max: 5, metrics });
});
afterAll(async () => {
  await database?.close();
  await test?.drop();
});

/** How many transactions chaintap_db_query_duration_seconds observed, by outcome. */
async function observed(outcome: 'ok' | 'error'): Promise<number> {
  const { values } = await metrics.dbQueryDuration.get();
  const count = values.find(
    (value) =>
      value.metricName === 'chaintap_db_query_duration_seconds_count' &&
      value.labels.store === 'maintenance.write' &&
      value.labels.outcome === outcome,
  );
  return count?.value ?? 0;
}

describe('withTransaction', () => {
  it('runs a deadlock victim again instead of failing it, observing each transaction once', async () => {
    let attempts = 0;
    let bothHoldFirstLock: () => void;
    const barrier = new Promise<void>((resolve) => (bothHoldFirstLock = resolve));
    let holding = 0;
    const lockInOrder = (first: number, second: number) =>
      withTransaction(database, 'maintenance.write', async (tx) => {
        attempts++;
        await tx.sql`update lock_order set touched = touched + 1 where id = ${first}`;
        if (++holding === 2) bothHoldFirstLock();
        await barrier;
        await tx.sql`update lock_order set touched = touched + 1 where id = ${second}`;
      });
    await Promise.all([lockInOrder(1, 2), lockInOrder(2, 1)]);
    expect(attempts).toBe(3); // one of the two was chosen as the victim and ran again
    const rows = await database.sql`select id, touched from lock_order order by id`;
    expect(rows).toEqual([
      { id: 1, touched: 2 },
      { id: 2, touched: 2 },
    ]);
    expect([await observed('ok'), await observed('error')]).toEqual([2, 0]);
  });

  it('does not retry other errors', async () => {
    let attempts = 0;
    await expect(
      withTransaction(database, 'maintenance.write', async (tx) => {
        attempts++;
        await tx.sql`insert into lock_order (id) values (1)`;
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(attempts).toBe(1);
    expect(await observed('error')).toBe(1);
  });
});
