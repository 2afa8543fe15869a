import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { whenReachable } from '../../src/db/when-reachable.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

let database: TestDatabase;
let admin: postgres.Sql;

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  admin = postgres(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await admin?.unsafe(`alter database "${database.name}" allow_connections true`).catch(() => undefined);
  await admin?.end();
  await database?.drop();
});

/** The database refuses new connections and loses the ones it has, as during a restart. */
async function refuseConnections(): Promise<void> {
  await admin.unsafe(`alter database "${database.name}" allow_connections false`);
  await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${database.name}`;
}

describe('whenReachable', () => {
  it('runs the work again until Postgres answers, saying once what it waits for', async () => {
    await database.sql`select 1`;
    await refuseConnections();
    const waits: unknown[] = [];
    const started = Date.now();
    const answer = whenReachable(() => database.sql<{ one: number }[]>`select 1 as one`, {
      waitMs: 20_000,
      pollMs: 200,
      onWait: (error) => waits.push(error),
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await admin.unsafe(`alter database "${database.name}" allow_connections true`);
    const [row] = await answer;
    expect(row!.one).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(waits).toHaveLength(1);
  });

  it('gives up with the error once the wait is over', async () => {
    await refuseConnections();
    try {
      const attempt = whenReachable(() => database.sql`select 1`, { waitMs: 600, pollMs: 200 });
      await expect(attempt).rejects.toMatchObject({ code: '55000' });
    } finally {
      await admin.unsafe(`alter database "${database.name}" allow_connections true`);
    }
  });

  it('throws any other error at once', async () => {
    let calls = 0;
    const attempt = whenReachable(
      () => {
        calls += 1;
        return database.sql`select 1 / 0`;
      },
      { waitMs: 10_000, pollMs: 200 },
    );
    await expect(attempt).rejects.toMatchObject({ code: '22012' });
    expect(calls).toBe(1);
  });
});
