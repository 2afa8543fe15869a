import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import { writePriceReport } from '../../src/ops/report-output.ts';
import { openPriceReport } from '../../src/ops/report-prices.ts';
import { reportRange } from '../../src/ops/report-request.ts';
import { nftJobs, positionJobs } from '../../src/scheduler/job-builders.ts';
import { startOpsServer } from '../ops/ops-test-server.ts';
import { startScriptedPipeline, type ScriptedPipeline } from '../support/scripted-upstream.ts';

// Issue 30 item 4: the prices positions and NFT answers carry, through the real client, queue,
// worker and Postgres, stored once per token and time, and reported like any token's.
const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');
const EVM_ANSWER = fixture('harvested-prices/positions-evm.json');
const NFT_ANSWER = fixture('real-answers/nfts-data-wrapped.json');
const TICK = new Date('2026-11-21T12:00:00Z');
const HOUR = 3_600_000;
const WALLETS = [`0x${'a1'.repeat(20)}`, `0x${'b2'.repeat(20)}`];
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const DAI = '0xda10009cbd5d07dd0cecc66161fc93d7c9000da1';
const SUI = normalizeCoinType('0x2::sui::SUI');

let pipeline: ScriptedPipeline;
beforeAll(async () => {
  pipeline = await startScriptedPipeline();
});
afterAll(async () => pipeline?.close());

const watch = (address: string) => ({ address, chain: null, protocols: null, nftChain: 'ALL', includePnl: false });
const positionsJob = (address: string, tick: Date) => positionJobs([watch(address)], tick, false)[0]!;

/** The EVM answer an hour later: every timestamp an hour on, USDC at another price. */
const hourLater = EVM_ANSWER.replaceAll('1795262400', '1795266000')
  .replaceAll('1795262340', '1795265940')
  .replaceAll('0.99987', '0.99991');

describe('prices harvested from positions and NFT answers', () => {
  it('are stored once per token and time, whatever positions and wallets carry them, each token on its chain', async () => {
    const { sql } = pipeline.harness.database;
    pipeline.answer('positions', EVM_ANSWER);
    for (const wallet of WALLETS) {
      await expect(pipeline.runJob('positions', positionsJob(wallet, TICK))).resolves.toMatchObject({
        state: 'completed',
      });
    }
    // Two wallets × USDC in three positions: one row; DAI on two chains: two tokens.
    await expect(sql`
      select chain, coin_type, price_time, price, origin from token_prices order by chain, coin_type`).resolves.toEqual(
      [
        { chain: 'arbitrum', coin_type: DAI, price_time: TICK, price: '1.0002', origin: 'positions' },
        { chain: 'ethereum', coin_type: USDC, price_time: TICK, price: '0.99987', origin: 'positions' },
        {
          chain: 'ethereum',
          coin_type: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
          price_time: new Date(TICK.getTime() - 60_000),
          price: '3401.66853342',
          origin: 'positions',
        },
        { chain: 'optimism', coin_type: DAI, price_time: TICK, price: '0.9998', origin: 'positions' },
      ],
    );
    await expect(sql`select count(*)::int as n from tokens`).resolves.toEqual([{ n: 4 }]);
    // Written with the positions, in the job's commit: counted with its rows (the second wallet's wrote none).
    const written = await pipeline.harness.context.metrics.rowsWritten.get();
    const byTable = Object.fromEntries(written.values.map((value) => [value.labels.table, value.value]));
    expect(byTable).toMatchObject({ tokens: 4, token_prices: 4 });

    // An NFT answer: each chain's native token at the tick, SUI's as the SUI coin type.
    pipeline.answer('nfts', NFT_ANSWER);
    const [nfts] = nftJobs([watch(WALLETS[0]!)], TICK);
    await expect(pipeline.runJob('nfts', nfts!)).resolves.toMatchObject({ state: 'completed' });
    await expect(sql`
      select chain, coin_type, price from token_prices where origin = 'nfts' order by chain`).resolves.toEqual([
      { chain: 'bitcoin', coin_type: 'native', price: '71668.79098' },
      { chain: 'ethereum', coin_type: 'native', price: '3401.66853342' },
      { chain: 'solana', coin_type: 'native', price: '182.4467953' },
      { chain: 'sui', coin_type: SUI, price: '2.64760333704' },
    ]);
  });

  it('keep the lower of two prices answers round apart at the same second, in either commit order', async () => {
    const { sql } = pipeline.harness.database;
    const usdcAt = (hours: number) => sql`
      select p.price, p.origin from token_prices p
      where p.chain = 'ethereum' and p.coin_type = ${USDC} and p.price_time = ${new Date(TICK.getTime() + hours * HOUR)}`;
    const at = (hours: number, price: string) =>
      EVM_ANSWER.replaceAll('1795262400', String(1795262400 + hours * 3600))
        .replaceAll('1795262340', String(1795262340 + hours * 3600))
        .replaceAll('0.99987', price);
    for (const [hours, order] of [
      [5, ['0.99993', '0.99992']],
      [6, ['0.99992', '0.99993']],
    ] as const) {
      for (const [n, price] of order.entries()) {
        pipeline.answer('positions', at(hours, price));
        const job = positionsJob(WALLETS[n]!, new Date(TICK.getTime() + hours * HOUR));
        await expect(pipeline.runJob('positions', job)).resolves.toMatchObject({ state: 'completed' });
      }
      await expect(usdcAt(hours)).resolves.toEqual([{ price: '0.99992', origin: 'positions' }]);
    }
  });

  it("give an EVM token a price series in the report (CSV), named with its chain, and on the ops server's page", async () => {
    pipeline.answer('positions', hourLater);
    await expect(
      pipeline.runJob('positions', positionsJob(WALLETS[0]!, new Date(TICK.getTime() + HOUR))),
    ).resolves.toMatchObject({ state: 'completed' });
    const range = reportRange(
      { from: new Date('2026-11-21T11:00:00Z'), to: new Date('2026-11-21T14:00:00Z'), interval: '1h' },
      new Date(),
    );
    const report = await openPriceReport(pipeline.harness.database, {
      tokens: [`ethereum:${USDC.toUpperCase().replace('0X', '0x')}`],
      range,
      now: new Date(),
    });
    let csv = '';
    await writePriceReport(report, 'csv', { write: async (text) => void (csv += text) });
    expect(csv.trim().split('\r\n')).toEqual([
      'coin_type,symbol,time,open,high,low,close,samples,gap,chain',
      `${USDC},USDC,2026-11-21T11:00:00.000Z,,,,,0,true,ethereum`,
      `${USDC},USDC,2026-11-21T12:00:00.000Z,0.99987,0.99987,0.99987,0.99987,1,false,ethereum`,
      `${USDC},USDC,2026-11-21T13:00:00.000Z,0.99991,0.99991,0.99991,0.99991,1,false,ethereum`,
    ]);
    // The same address on another chain is another token; a chain with no price of it is refused.
    await expect(
      openPriceReport(pipeline.harness.database, { tokens: [`arbitrum:${USDC}`], range, now: new Date() }),
    ).rejects.toThrow(`no prices stored for token arbitrum:${USDC}`);

    const ops = await startOpsServer({
      database: pipeline.harness.database,
      redis: pipeline.harness.connection,
      queues: pipeline.harness.queues,
    });
    try {
      const query = `tokens=ethereum:${USDC},optimism:${DAI}&from=2026-11-21T11:00:00Z&to=2026-11-21T14:00:00Z&interval=1h`;
      const page = await fetch(`${ops.url}/report/prices?${query}`);
      expect(page.status).toBe(200);
      const text = await page.text();
      expect(text).toContain(`data-coin-type="${USDC}" data-chain="ethereum"`);
      expect(text).toContain(`data-coin-type="${DAI}" data-chain="optimism"`);
      expect(text).toContain('<td>ethereum</td>');
      const refused = await fetch(`${ops.url}/report/prices?tokens=${USDC}`);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain(
        'a token of another chain is named with its chain: &lt;chain&gt;:&lt;token&gt;',
      );
    } finally {
      await ops.close();
    }
  });
});
