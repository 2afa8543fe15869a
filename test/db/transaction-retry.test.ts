import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/transaction.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  await database.sql`create table lock_order (id int primary key, touched int not null default 0)`;
  await database.sql`insert into lock_order (id) values (1), (2)`;
});
afterAll(async () => database?.drop());

describe('withTransaction', () => {
  it('runs a deadlock victim again instead of failing it', async () => {
    let attempts = 0;
    let bothHoldFirstLock: () => void;
    const barrier = new Promise<void>((resolve) => (bothHoldFirstLock = resolve));
    let holding = 0;
    const lockInOrder = (first: number, second: number) =>
      withTransaction(database, async (tx) => {
        attempts++;
        await tx.sql`update lock_order set touched = touched + 1 where id = ${first}`;
        if (++holding === 2) bothHoldFirstLock();
        await barrier;
        await tx.sql`update lock_order set touched = touched + 1 where id = ${second}`;
      });
    await Promise.all([lockInOrder(1, 2), lockInOrder(2, 1)]);
    expect(attempts).toBe(3); // one of the two was chosen as the victim and ran again
    const rows = await database.sql`select id, touched from lock_order order by id`;
    expect(rows).toEqual([{ id: 1, touched: 2 }, { id: 2, touched: 2 }]);
  });

  it('does not retry other errors', async () => {
    let attempts = 0;
    await expect(
      withTransaction(database, async (tx) => {
        attempts++;
        await tx.sql`insert into lock_order (id) values (1)`;
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(attempts).toBe(1);
  });
});
