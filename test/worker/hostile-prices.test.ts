import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import { partitionsOf } from '../../src/db/partitions.ts';
import { createPriceGaps } from '../../src/queue/price-gaps.ts';
import { priceJobs } from '../../src/scheduler/job-builders.ts';
import { startScriptedPipeline, type ScriptedPipeline } from '../support/scripted-upstream.ts';

// Issue 31: a price answer the service should never send, through the real client, queue, worker
// and Postgres. Asked for SUI only, it also carries other coin types, a negative price, 1e308, a
// price dated 1990 and one dated 23 hours ahead.
const SUI = normalizeCoinType('0x2::sui::SUI');
const USDC = '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC';
const MINUTE = 60_000;
const seconds = (ms: number) => Math.floor(ms / 1000);

let pipeline: ScriptedPipeline;
beforeAll(async () => {
  pipeline = await startScriptedPipeline();
});
afterAll(async () => pipeline?.close());

const entry = (coinType: string, price: unknown, timeMs: number) => ({
  contract_address: coinType,
  symbol: coinType.split('::')[2],
  price,
  last24hPrice: 3,
  timestamp: seconds(timeMs),
  decimals: 9,
  source: 'pyth',
});

/** The current price job of SUI alone at `tick`, as the scheduler plans it. */
const sui = (tick: number) => priceJobs([SUI], new Date(tick), { slotEnd: new Date(tick + MINUTE) })[0]!;
const gaps = () => createPriceGaps(pipeline.harness.connection, pipeline.harness.options.QUEUE_PREFIX);

describe('a hostile price answer', () => {
  it('stores only the price asked for that could be true; the rest is quarantined per entry with its reason', async () => {
    const { sql } = pipeline.harness.database;
    const tick = Math.floor(Date.now() / MINUTE) * MINUTE;
    const partitionsBefore = (await partitionsOf(pipeline.harness.database, 'token_price_points')).map((p) => p.name);
    const hostile = [
      entry('0x2::sui::SUI', 3.2, tick),
      entry(USDC, 1, tick),
      entry('0x99::other::OTHER', 5, tick),
      entry('0x2::sui::SUI', -4, tick - MINUTE),
      entry('0x2::sui::SUI', 1e308, tick - 2 * MINUTE),
      entry('0x2::sui::SUI', 3.1, Date.parse('1990-01-01T00:00:00Z')),
      entry('0x2::sui::SUI', 9.9, tick + 23 * 3_600_000),
    ];
    pipeline.answer('prices', JSON.stringify({ data: hostile }));
    await expect(pipeline.runJob('prices', sui(tick))).resolves.toMatchObject({ state: 'completed', requests: 1 });

    await expect(sql`select coin_type, chain from token_catalog`).resolves.toEqual([{ coin_type: SUI, chain: 'sui' }]);
    await expect(sql`select coin_type, price, price_time, origin from token_prices`).resolves.toEqual([
      { coin_type: SUI, price: '3.2', price_time: new Date(tick), origin: 'prices' },
    ]);
    const quarantined = await sql<{ element_index: number; reason: string }[]>`
      select element_index, reason from quarantined_payloads where dataset = 'prices' order by element_index`;
    expect(quarantined).toEqual([
      { element_index: 1, reason: `coin type ${USDC} was not asked for` },
      { element_index: 2, reason: `coin type ${normalizeCoinType('0x99::other::OTHER')} was not asked for` },
      { element_index: 3, reason: `price -4 is not positive, for ${SUI}` },
      { element_index: 4, reason: `price 1.000000e+308 is above 1000000000000 USD, for ${SUI}` },
      {
        element_index: 5,
        reason: `price time 1990-01-01T00:00:00.000Z is more than 24 h before the slot ${new Date(tick).toISOString()}, for ${SUI}`,
      },
      { element_index: 6, reason: expect.stringMatching(/^price time .* is after .*5 min past the fetch/) },
    ]);
    await expect(
      sql`select status, elements_stored, elements_quarantined from ingestion_runs where dataset = 'prices'`,
    ).resolves.toEqual([{ status: 'succeeded', elements_stored: 1, elements_quarantined: 6 }]);
    // Partitions only for the month of the price stored: none for 1990, none for the months between.
    const month = new Date(tick).toISOString().slice(0, 7).replace('-', '_');
    const created = (await partitionsOf(pipeline.harness.database, 'token_price_points'))
      .map((p) => p.name)
      .filter((name) => !partitionsBefore.includes(name));
    expect(created.every((name) => name === `token_price_points_p${month}`)).toBe(true);
    expect(
      (await partitionsOf(pipeline.harness.database, 'token_price_points')).every(
        (p) => p.from.getTime() >= Date.parse(`${month.replace('_', '-')}-01T00:00:00Z`),
      ),
    ).toBe(true);
    // The slot has its price: no gap.
    await expect(gaps().count()).resolves.toBe(0);

    // The future price hid nothing: the next minute's price is the latest.
    pipeline.answer('prices', JSON.stringify({ data: [entry(SUI, 3.25, tick + MINUTE)] }));
    await expect(pipeline.runJob('prices', sui(tick + MINUTE))).resolves.toMatchObject({ state: 'completed' });
    await expect(sql`select price, price_time from latest_token_prices where coin_type = ${SUI}`).resolves.toEqual([
      { price: '3.25', price_time: new Date(tick + MINUTE) },
    ]);
    // The status page's series of the watched token: the stored prices only.
    await expect(sql`select count(*)::int as n from token_prices where price > 100 or price <= 0`).resolves.toEqual([
      { n: 0 },
    ]);
  });

  it('keeps a current price dated before its slot at its own time within 24 hours, and leaves the slot to the catch-up', async () => {
    const { sql } = pipeline.harness.database;
    const tick = (Math.floor(Date.now() / MINUTE) + 5) * MINUTE;
    const stale = tick - 2 * 3_600_000;
    pipeline.answer('prices', JSON.stringify({ data: [entry(SUI, 3.05, stale)] }));
    await expect(pipeline.runJob('prices', sui(tick))).resolves.toMatchObject({ state: 'completed' });
    await expect(sql`select price from token_prices where price_time = ${new Date(stale)}`).resolves.toEqual([
      { price: '3.05' },
    ]);
    await expect(gaps().newest()).resolves.toEqual(new Date(tick));
  });
});
