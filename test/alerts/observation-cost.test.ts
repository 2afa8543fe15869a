import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeChange } from '../../src/alerts/observations.ts';
import { parseRules } from '../../src/alerts/rules.ts';
import type { ChangeRule } from '../../src/alerts/conditions.ts';
import { ensurePartitions } from '../../src/db/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { coin } from '../support/coins.ts';

// The alerts process evaluates a price rule at every price tick, for as long as it runs: what one
// evaluation reads must not grow with the history kept. Blocks read are counted from pg_statio.
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const END = Date.parse('2026-10-31T00:00:00Z');

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await ensurePartitions(database, { from: new Date(END - 40 * DAY), to: new Date(END + DAY) });
  // Thirty days of a price a minute.
  await database.sql`
    with token as (
      insert into token_catalog (coin_type, chain, symbol, first_seen_at)
      values (${coin(1)}, 'sui', 'ONE', ${new Date(END - 30 * DAY)}) returning id)
    insert into token_price_points (token_id, price_time, price, fetch_delay_s, origin)
    select token.id, t, 1 + (extract(epoch from t)::bigint % 97) / 100.0, 0, 1
    from token, generate_series(${new Date(END - 30 * DAY)}::timestamptz, ${new Date(END)}::timestamptz, interval '1 minute') t`;
  await database.sql`analyze token_price_points`;
});

afterAll(async () => {
  await database?.drop();
});

function priceRule(token: string): ChangeRule {
  const { rules } = parseRules(
    JSON.stringify({
      webhooks: [{ name: 'ops', url: 'https://alerts.example.com/hook' }],
      rules: [{ id: 'moves', kind: 'price_change', token, window: '1h', percent: 5 }],
    }),
    'rules.json',
  );
  return rules[0] as ChangeRule;
}

/** Blocks of the price partitions (heap and indexes) one observation read, on a connection of its own. */
async function blocksRead(rule: ChangeRule) {
  const connection = await database.sql.reserve();
  try {
    const counted = async () => {
      // Flush this backend's counters, and read them afresh (a transaction reads a snapshot of them).
      await connection`select pg_stat_force_next_flush()`;
      await connection`select 1`;
      await connection`select pg_stat_clear_snapshot()`;
      const [row] = await connection<{ blocks: string }[]>`
        select sum(coalesce(heap_blks_read, 0) + coalesce(heap_blks_hit, 0) + coalesce(idx_blks_read, 0) + coalesce(idx_blks_hit, 0)) as blocks
        from pg_statio_user_tables where relname like 'token_price_points_p%'`;
      return Number(row!.blocks);
    };
    const before = await counted();
    const observation = await observeChange(connection, rule);
    return { blocks: (await counted()) - before, observation };
  } finally {
    connection.release();
  }
}

describe('a price rule evaluation', () => {
  it('reads the newest price and its reference, not the history before them', async () => {
    const { blocks, observation } = await blocksRead(priceRule(coin(1)));
    expect(observation).toMatchObject({ symbol: 'ONE', at: new Date(END), refAt: new Date(END - 60 * MINUTE) });
    const [history] = await database.sql<{ blocks: string }[]>`
      select sum(pg_relation_size(relid) / current_setting('block_size')::int) as blocks
      from pg_statio_user_tables where relname like 'token_price_points_p%'`;
    // Sorting the token's history for its newest price read all of it: 334 blocks (heap and index) where
    // the partitions' heaps hold 318; reading down the key, 14.
    expect(blocks).toBeGreaterThan(0);
    expect(blocks).toBeLessThan(Number(history!.blocks) / 10);
  });
});
