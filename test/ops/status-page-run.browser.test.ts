import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { pathVertices, takeScreenshot } from '../support/screenshots.ts';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { formatUsd, formatUsdPrice } from '../../src/ops/figures.ts';
import { createOpsServer, type OpsServer } from '../../src/ops/server.ts';
import { runBackfill } from '../../src/cli/backfill-prices.ts';
import { runCycle } from '../../src/cli/run-cycle.ts';
import { createPipelineHarness, WORLD_TIME, type PipelineHarness, cycleDeps } from '../support/pipeline.ts';

/**
 * The status page after a real run: a day of hourly prices backfilled and one full cycle through
 * the queues, workers and simulated upstream; then Chromium loads the page and /metrics is scraped.
 * Its screenshot is docs/status-page.png (UPDATE_SCREENSHOTS=1 rewrites it).
 */
const HOUR = 3_600_000;
const TOKENS = ['0x2::sui::SUI', `0x${'d'.repeat(64)}::usdc::USDC`, `0x${'e'.repeat(64)}::cetus::CETUS`];

let harness: PipelineHarness;
let server: OpsServer;
let url: string;
let browser: Browser;
const tick = new Date(WORLD_TIME);

beforeAll(async () => {
  harness = await createPipelineHarness({ options: { OPS_HOST: '127.0.0.1', OPS_PORT: '0' } });
  await addWatchedTokens(harness.database, TOKENS);
  await addWatchedAddresses(harness.database, ['0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e'], {
    includePnl: true,
  });
  const deps = cycleDeps(harness);
  await runBackfill(deps, {
    from: new Date(WORLD_TIME - 23 * HOUR),
    to: new Date(WORLD_TIME - HOUR),
    intervalMs: HOUR,
  });
  const outcome = await runCycle(deps, { tick, datasets: ['prices', 'positions', 'nfts'] });
  expect(outcome.complete).toBe(true);
  server = createOpsServer({
    context: harness.context,
    database: harness.database,
    redis: harness.connection,
    queues: harness.queues,
    now: () => new Date(WORLD_TIME + 60_000),
  });
  url = await server.listen();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await harness?.close();
});

describe('status page and metrics after a real run', () => {
  it('charts every watched token with the prices the run stored', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      expect((await page.goto(`${url}/`))?.status()).toBe(200);
      const [stored] = await harness.database.sql<{ n: number }[]>`
        select count(*)::int as n from token_prices where coin_type = ${`0x${'0'.repeat(63)}2::sui::SUI`}`;
      expect(stored!.n).toBe(24); // 23 backfilled hours and the cycle's current price
      const line = page.locator(
        `.token[data-coin-type="0x${'0'.repeat(63)}2::sui::SUI"] svg.price-chart path.price-line`,
      );
      expect(pathVertices(await line.getAttribute('d'))).toBe(24);
      await expect(page.locator('.token svg.price-chart path.price-line').count()).resolves.toBe(TOKENS.length);
      // Figures for people: the latest price to six significant digits, the exact one on hover.
      const latest = page.locator(`.token[data-coin-type="0x${'0'.repeat(63)}2::sui::SUI"] .latest span`);
      const [stored24] = await harness.database.sql<{ price: string }[]>`
        select price::text from latest_token_prices where coin_type = ${`0x${'0'.repeat(63)}2::sui::SUI`}`;
      await expect(latest.getAttribute('title')).resolves.toBe(stored24!.price);
      await expect(latest.textContent()).resolves.toBe(formatUsdPrice(stored24!.price));
      // Round value ticks: every label on the axis is a multiple of the step between two of them.
      const ticks = await page
        .locator(`.token[data-coin-type="0x${'0'.repeat(63)}2::sui::SUI"] svg.price-chart text.y-tick`)
        .allTextContents();
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      const values = ticks.map((tick) => Number(tick.replace(/[$,]/g, '')));
      const step = values[1]! - values[0]!;
      expect(values.every((value) => Math.abs(value / step - Math.round(value / step)) < 1e-6)).toBe(true);
      for (const dataset of ['prices', 'positions', 'nfts']) {
        await expect(page.locator(`tr[data-dataset="${dataset}"] .freshness`).textContent()).resolves.toBe('1 min 0 s');
      }
      await takeScreenshot(page, 'status-page-run.png', { fullPage: true, docsName: 'status-page.png' });
    } finally {
      await page.close();
    }
  });

  it('lists the watched address with its latest total value, a sparkline and a link to its report', async () => {
    const address = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${url}/`);
      const row = page.locator(`#addresses tr[data-address="${address}"]`);
      const [latest] = await harness.database.sql<{ total: string }[]>`
        select total_value::text as total from latest_portfolio where owner = ${address}`;
      await expect(row.locator('td.num').first().getAttribute('title')).resolves.toBe(latest!.total);
      await expect(row.locator('td.num').first().textContent()).resolves.toBe(formatUsd(latest!.total));
      await expect(row.locator('a').getAttribute('href')).resolves.toBe(`/report/portfolio?address=${address}`);
      // One cycle a minute before the page's clock: only the sparkline's last point (now) has a value.
      const points = await row
        .locator('path.spark-line')
        .evaluate((element) => (element as unknown as { dataset: { points: string } }).dataset.points);
      expect(points).toBe('1');
      await expect(row.locator('svg.sparkline circle').count()).resolves.toBe(1);
    } finally {
      await page.close();
    }
  });

  it('exports what the run did in /metrics', async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 'NaN');
    expect(value(/^chaintap_upstream_requests_total\{operation="positions",status="200"\} (\d+)$/m)).toBe(1);
    expect(value(/^chaintap_upstream_requests_total\{operation="prices",status="200"\} (\d+)$/m)).toBe(24);
    expect(value(/^chaintap_jobs_total\{queue="prices",outcome="completed"\} (\d+)$/m)).toBe(24);
    expect(value(/^chaintap_rows_written_total\{table="position_snapshots"\} (\d+)$/m)).toBeGreaterThan(0);
    expect(value(/^chaintap_dataset_freshness_seconds\{dataset="positions"\} (\d+)$/m)).toBe(60);
    expect(text).toMatch(/^chaintap_queue_jobs\{queue="prices",state="completed"\} 24$/m);
  });
});
