import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedTokens } from '../../src/db/index.ts';
import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import { runBackfill } from '../../src/cli/backfill-prices.ts';
import { simulatedTokenPrice } from '../../src/simulator/index.ts';
import { createPipelineHarness, type PipelineHarness, cycleDeps } from '../support/pipeline.ts';

const HOUR = 3_600_000;
const FROM = new Date('2026-11-20T00:00:00Z');
const TO = new Date('2026-11-20T06:00:00Z');
const TOKENS = ['0x2::sui::SUI', `0x${'5'.repeat(64)}::usdc::USDC`, `0x${'6'.repeat(64)}::cetus::CETUS`].map(
  normalizeCoinType,
);

let harness: PipelineHarness;
const deps = () => cycleDeps(harness);

async function storedTimes(coinType: string): Promise<string[]> {
  const rows = await harness.database.sql<{ t: Date }[]>`
    select price_time as t from token_prices where coin_type = ${coinType} and price_time between ${FROM} and ${TO} order by 1`;
  return rows.map((row) => row.t.toISOString());
}

beforeAll(async () => {
  harness = await createPipelineHarness();
  await addWatchedTokens(harness.database, TOKENS);
});
afterAll(async () => harness?.close());

describe('backfill prices', () => {
  const steps = Array.from({ length: 7 }, (_, i) => new Date(FROM.getTime() + i * HOUR).toISOString());

  it('stores the price at every step, both ends included, one request per step', async () => {
    const outcome = await runBackfill(deps(), { from: FROM, to: TO, intervalMs: HOUR });
    expect(outcome).toMatchObject({ steps: 7, coinTypes: 3, jobs: 7, skipped: 0, complete: true });
    expect(harness.simulator.stats().byOperation.prices).toBe(7);
    for (const coinType of TOKENS) expect(await storedTimes(coinType)).toEqual(steps);
    const [row] = await harness.database.sql<{ price: string }[]>`
      select price from token_prices where coin_type = ${TOKENS[0]!} and price_time = ${steps[3]!}`;
    expect(Number(row!.price)).toBe(simulatedTokenPrice(TOKENS[0]!, Date.parse(steps[3]!)));
  });

  it('fills exactly the missing times when run again', async () => {
    await harness.database.sql`
      delete from token_price_points p using tokens t
      where p.token_id = t.id and t.coin_type = ${TOKENS[1]!} and p.price_time in (${steps[2]!}, ${steps[5]!})`;
    harness.simulator.resetStats();
    const outcome = await runBackfill(deps(), { from: FROM, to: TO, intervalMs: HOUR });
    expect(outcome).toMatchObject({ jobs: 2, skipped: 19, complete: true });
    expect(harness.simulator.stats().byOperation.prices).toBe(2);
    expect(await storedTimes(TOKENS[1]!)).toEqual(steps);

    harness.simulator.resetStats();
    const nothing = await runBackfill(deps(), { from: FROM, to: TO, intervalMs: HOUR });
    expect(nothing).toMatchObject({ jobs: 0, skipped: 21, complete: true });
    expect(harness.simulator.stats().requests).toBe(0);
  });

  it('rejects a bad coin type before any request', async () => {
    harness.simulator.resetStats();
    await expect(
      runBackfill(deps(), { from: FROM, to: TO, intervalMs: HOUR, coinTypes: ['0x1::lp::LP<0x2::a::A,0x3::b::B>'] }),
    ).rejects.toThrow(/comma/);
    expect(harness.simulator.stats().requests).toBe(0);
  });
});
