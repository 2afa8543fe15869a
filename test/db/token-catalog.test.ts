import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { writeTokenPrices, type Tx } from '../../src/db/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { priceRows } from './job-helpers.ts';

const T0 = new Date('2026-11-21T12:00:00Z');
const hoursBefore = (n: number) => new Date(T0.getTime() - n * 3_600_000);
const COINS = Array.from({ length: 40 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}::c${i}::C${i}`);

/** A backfill answer: every coin's price at `at`, in the given order. */
const answer = (coins: string[], at: Date) =>
  priceRows(
    coins.map((coin) => ({
      contract_address: coin,
      symbol: coin.split('::')[2],
      price: 1,
      timestamp: at.getTime() / 1000,
      decimals: 9,
    })),
    at,
  );

/** A plain transaction (no deadlock retry, unlike withTransaction), so that a deadlock surfaces. */
async function writeOnce(database: Database, coins: string[], at: Date) {
  await database.sql.begin(async (sql) => {
    await writeTokenPrices({ sql }, answer(coins, at));
  });
}

function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('token_catalog under concurrent writers', () => {
  let database: TestDatabase;
  let pool: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = createDatabase(database.url, { max: 8 });
  });
  afterAll(async () => {
    await pool.close();
    await database.drop();
  });

  it('lets answers that move the same tokens in different orders queue instead of deadlocking', async () => {
    // A catalog of thousands of tokens, as in production: the update then probes its index per incoming row.
    const others = Array.from(
      { length: 5000 },
      (_, i) => `0x${(i + 1000).toString(16).padStart(64, '0')}::o${i}::O${i}`,
    );
    for (let i = 0; i < others.length; i += 1000) await writeOnce(pool, others.slice(i, i + 1000), T0);
    await writeOnce(pool, COINS, T0);
    await database.sql`analyze token_catalog`;
    // Like a backfill: each round's 8 jobs answer earlier hours, so each moves first_seen_at of every coin.
    let hour = 0;
    for (let round = 0; round < 25; round++) {
      const jobs = Array.from({ length: 8 }, (_, j) =>
        writeOnce(pool, shuffled(COINS, round * 8 + j + 1), hoursBefore(++hour)),
      );
      const outcomes = await Promise.allSettled(jobs);
      const failures = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      expect(failures.map((failure) => String(failure.reason))).toEqual([]);
    }
    const rows = await database.sql`select distinct first_seen_at from token_catalog where coin_type = any(${COINS})`;
    expect(rows).toEqual([{ first_seen_at: hoursBefore(hour) }]);
    await expect(database.sql`select count(*)::int as n from token_price_points`).resolves.toEqual([
      { n: COINS.length * (hour + 1) + others.length },
    ]);
  });

  it('keeps the earlier first_seen_at of a new token that another transaction inserts meanwhile', async () => {
    // Found by the backfill fault scenario: two jobs of one backfill first see a token at once.
    const coin = `0x${'ab'.repeat(32)}::race::RACE`;
    const later = await pool.sql.reserve();
    try {
      // The later hour's job inserts the token and holds its transaction open...
      await later`begin`;
      const laterTx: Tx = { sql: later as never };
      await writeTokenPrices(laterTx, answer([coin], hoursBefore(1)));
      // ...while the earlier hour's job inserts it too: it waits on the key, then finds it there.
      const earlier = writeOnce(pool, [coin], hoursBefore(2));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await later`commit`;
      await earlier;
    } finally {
      later.release();
    }
    const [row] = await database.sql`select first_seen_at from token_catalog where coin_type = ${coin}`;
    expect(row).toEqual({ first_seen_at: hoursBefore(2) });
  });
});
