import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import { runCycle } from '../../src/cli/run-cycle.ts';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { createPipelineHarness, cycleDeps, WORLD_TIME, type PipelineHarness } from '../support/pipeline.ts';

// Issue 30 item 4: a watched SUI token whose price for a slot a positions answer already brought is
// not asked again at that slot. The simulated upstream's real-shape positions carry each token's
// price at the world time (fixed at WORLD_TIME, the tick).
const SUI = normalizeCoinType('0x2::sui::SUI');
/** A coin type the wallet does not hold: asked as ever. */
const OTHER = normalizeCoinType('0x5d4b302506645c37ff133b98c4b50a5ae14841659738d6d733d59d0d217a93bf::coin::COIN');
const WALLET = `0x${'a1'.repeat(32)}`;
const TICK = new Date(WORLD_TIME);

let harness: PipelineHarness;
beforeAll(async () => {
  harness = await createPipelineHarness();
  await addWatchedAddresses(harness.database, [WALLET], { datasets: ['positions'] });
});
afterAll(async () => harness?.close());

const priceRequests = () => harness.simulator.stats().byOperation.prices ?? 0;

describe('a price slot after a positions answer priced a watched token in it', () => {
  it('leaves the token out: a batch of it alone sends no request, and the tick completes', async () => {
    await addWatchedTokens(harness.database, [SUI]);
    const positions = await runCycle(cycleDeps(harness), { tick: TICK, datasets: ['positions'] });
    expect(positions.complete).toBe(true);
    await expect(harness.database.sql`
      select origin, price_time from token_prices where coin_type = ${SUI} and chain = 'sui'`).resolves.toEqual([
      { origin: 'positions', price_time: TICK },
    ]);

    const before = priceRequests();
    const prices = await runCycle(cycleDeps(harness), { tick: TICK, datasets: ['prices'] });
    expect(prices).toMatchObject({ complete: true, produced: [{ queue: 'prices', jobs: 0 }] });
    expect(priceRequests()).toBe(before);
    await expect(harness.tracker.progress('prices', TICK)).resolves.toMatchObject({ complete: true, expected: 0 });
  });

  it('asks only for the tokens it has no price of in the slot', async () => {
    await addWatchedTokens(harness.database, [OTHER]);
    const before = priceRequests();
    const prices = await runCycle(cycleDeps(harness), { tick: TICK, datasets: ['prices'] });
    expect(prices).toMatchObject({ complete: true, produced: [{ queue: 'prices', jobs: 1 }] });
    expect(priceRequests()).toBe(before + 1);
    await expect(lastPriceRequest()).resolves.toEqual([OTHER]);
  });

  it('asks for every token at a slot with no harvested price in it', async () => {
    const before = priceRequests();
    const next = new Date(TICK.getTime() + 60_000);
    const prices = await runCycle(cycleDeps(harness), { tick: next, datasets: ['prices'] });
    expect(prices).toMatchObject({ complete: true, produced: [{ queue: 'prices', jobs: 1 }] });
    expect(priceRequests()).toBe(before + 1);
    await expect(lastPriceRequest()).resolves.toEqual([SUI, OTHER].sort());
  });
});

/** The coin types the last price answer carried: the simulated upstream answers those asked, in order. */
async function lastPriceRequest(): Promise<string[]> {
  const [answer] = await harness.database.sql<{ body: string }[]>`
    select body from raw_responses where dataset = 'prices' order by id desc limit 1`;
  const { data } = JSON.parse(answer!.body) as { data: { contract_address: string }[] };
  return data.map((entry) => normalizeCoinType(entry.contract_address));
}
