import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { takeScreenshot } from '../support/screenshots.ts';
import { formatUsd } from '../../src/ops/figures.ts';
import { createOpsServer, type OpsServer } from '../../src/ops/server.ts';
import { writeFileAtomically } from '../../src/ops/report-file.ts';
import { writePriceReport } from '../../src/ops/report-output.ts';
import { openPriceReport } from '../../src/ops/report-prices.ts';
import { reportRange } from '../../src/ops/report-request.ts';
import { WORLD_TIME, type PipelineHarness } from '../support/pipeline.ts';
import { ADDRESS, createReportWorld, HOUR, IDLE_ADDRESS, SUI, USDC } from '../reports/report-world.ts';

/**
 * The HTML reports as a person sees them, in Debian's Chromium (headless): the portfolio report
 * served by the ops server behind OPS_TOKEN and reached from the status page's link, and a price
 * report file. Charts must be drawn, nothing may be fetched, no console error. Screenshots are left
 * in test-results/ (report-portfolio-top.png is docs/report-portfolio.png: UPDATE_SCREENSHOTS=1).
 */
const TOKEN = 'report-browser-test-token';
/** Twelve cycles four hours apart over the two days before the world's time. */
const TICKS = Array.from({ length: 12 }, (_, i) => new Date(WORLD_TIME - (44 - 4 * i) * HOUR));
const NOW = new Date(WORLD_TIME + 60_000);

let harness: PipelineHarness;
let server: OpsServer;
let url: string;
let browser: Browser;
const folder = mkdtempSync(join(tmpdir(), 'chaintap-report-browser-'));

beforeAll(async () => {
  harness = await createReportWorld({
    cycleTicks: TICKS,
    options: { OPS_TOKEN: TOKEN, OPS_HOST: '127.0.0.1', OPS_PORT: '0' },
  });
  server = createOpsServer({
    context: harness.context,
    database: harness.database,
    redis: harness.connection,
    queues: harness.queues,
    now: () => NOW,
  });
  url = await server.listen();
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await harness?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A page that records console errors, page errors and every request it makes. */
async function watchedPage(): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    // Chromium asks every new origin for /favicon.ico, which the ops server does not serve.
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  return { page, errors, requests };
}

const pathPoints = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluate((element) => Number((element as unknown as { dataset: { points: string } }).dataset.points));

describe('the portfolio report on the ops server', () => {
  it('is linked from the status page, each watched address with its value and a 7-day sparkline', async () => {
    const { page, errors } = await watchedPage();
    try {
      expect((await page.goto(`${url}/?token=${TOKEN}`))?.status()).toBe(200);
      const row = page.locator(`#addresses tr[data-address="${ADDRESS}"]`);
      const [latest] = await harness.database.sql<{ total: string }[]>`
        select total_value::text as total from latest_portfolio where owner = ${ADDRESS}`;
      await expect(row.locator('td.num').first().getAttribute('title')).resolves.toBe(latest!.total);
      // A point every 6 hours of the week back from the page's clock; the 44 hours since the first
      // cycle hold 8 of them, the earlier ones are gaps.
      expect(await pathPoints(page, `#addresses tr[data-address="${ADDRESS}"] path.spark-line`)).toBe(8);
      await expect(page.locator(`#addresses tr[data-address="${IDLE_ADDRESS}"] svg.sparkline`).count()).resolves.toBe(
        1,
      );

      await row.locator('a').click();
      await page.waitForURL(/\/report\/portfolio\?address=/);
      expect(await page.title()).toBe(`Portfolio report: ${ADDRESS}`);
      // The default range: 30 days to now, daily; the cycles fall in the last two days. The 29 days
      // before the first refresh are one gap row, and the chart starts at the first refresh.
      await expect(page.locator('table.series tbody tr').count()).resolves.toBe(3);
      await expect(page.locator('table.series tr.gap').getAttribute('data-rows')).resolves.toBe('29');
      await expect(page.locator('#value p.starts-later').getAttribute('data-gaps')).resolves.toBe('29');
      expect(await pathPoints(page, 'svg.time-chart path.series-total')).toBe(2);
      // Figures for people, the exact ones on hover.
      const [last] = await harness.database.sql<{ total: string }[]>`
        select total_value::text as total from latest_portfolio where owner = ${ADDRESS}`;
      const total = page.locator('#summary dd.total span');
      await expect(total.getAttribute('title')).resolves.toBe(last!.total);
      await expect(total.textContent()).resolves.toBe(formatUsd(last!.total));
      await expect(total.textContent()).resolves.toMatch(/^\$[\d,]+\.\d\d$/);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('draws the value over time, the PnL of every position and the value of every collection', async () => {
    const { page, errors, requests } = await watchedPage();
    try {
      const query = `address=${ADDRESS}&from=2026-11-19T12:00:00Z&to=2026-11-21T12:00:00Z&interval=1h`;
      const response = await page.goto(`${url}/report/portfolio?${query}&token=${TOKEN}`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toBe(
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      );
      // 49 hourly rows; the first cycle at 16:00 leaves 4 gaps before it, and the chart starts there.
      expect(await pathPoints(page, 'svg.time-chart path.series-total')).toBe(45);
      await expect(page.locator('#value p.starts-later').getAttribute('data-gaps')).resolves.toBe('4');
      await expect(page.locator('svg.time-chart text.x-tick').first().textContent()).resolves.toBe('11-20 00:00');
      // Every value figure of the tables is money: `$1,234.56`, `($1,234.56)` for a loss.
      const cells = await page.locator('table.series td.num, table.positions td.num').allTextContents();
      expect(cells.length).toBeGreaterThan(40);
      for (const cell of cells) expect(cell).toMatch(/^(\(\$[\d,]+\.\d\d\)|\$[\d,]+\.\d\d|—)$/);
      const line = await page.locator('svg.time-chart path.series-total').boundingBox();
      expect(line!.width).toBeGreaterThan(500);
      expect(line!.height).toBeGreaterThan(20);

      const [counts] = await harness.database.sql<{ positions: number; nfts: number }[]>`
        select (select count(*)::int from position_pnl where owner = ${ADDRESS} and snapshot_at = ${TICKS.at(-1)!}) as positions,
               (select count(*)::int from nft_pnl where owner = ${ADDRESS} and snapshot_at = ${TICKS.at(-1)!}) as nfts`;
      const barCharts = page.locator('svg.bar-chart');
      await expect(barCharts.count()).resolves.toBe(2);
      await expect(barCharts.nth(0).getAttribute('data-bars')).resolves.toBe(String(counts!.positions));
      await expect(barCharts.nth(1).getAttribute('data-bars')).resolves.toBe(String(counts!.nfts));
      await expect(page.locator('table.positions tbody tr').count()).resolves.toBe(counts!.positions);
      // A 66-character position id fits its cell on one line, shortened, the whole id on hover; so
      // do the longer ids of nested positions.
      const idCell = page.locator('table.positions tr.top td.id').first();
      const positionId = (await page.locator('table.positions tr.top').first().getAttribute('data-position-id'))!;
      expect(positionId).toHaveLength(66);
      await expect(idCell.locator('span').getAttribute('title')).resolves.toBe(positionId);
      await expect(idCell.textContent()).resolves.toBe(`${positionId.slice(0, 6)}…${positionId.slice(-4)}`);
      const oneLine = (await page.locator('table.positions td.num').first().boundingBox())!.height;
      for (const cell of await page.locator('table.positions td.id').all()) {
        expect((await cell.boundingBox())!.height, (await cell.textContent())!).toBe(oneLine);
      }
      const drawnBars = await page.locator('svg.bar-chart rect.bar').count();
      expect(drawnBars).toBeGreaterThan(counts!.nfts);

      expect(errors).toEqual([]);
      // The document itself and nothing else: no font, image or style from anywhere.
      expect(requests).toEqual([`${url}/report/portfolio?${query}&token=${TOKEN}`]);
      await takeScreenshot(page, 'report-portfolio.png', { fullPage: true });
      await takeScreenshot(page, 'report-portfolio-top.png', { docsName: 'report-portfolio.png' });

      // Printed: the dark header gives way to plain text, and it lays out as a PDF.
      await page.emulateMedia({ media: 'print' });
      const header = await page
        .locator('header')
        .evaluate(
          (element) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(
              element,
            ).backgroundColor,
        );
      expect(header).toBe('rgba(0, 0, 0, 0)');
      const pdf = await page.pdf({ format: 'A4' });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    } finally {
      await page.close();
    }
  });

  it('is refused without the token, and explains bad input', async () => {
    const { page } = await watchedPage();
    try {
      expect((await page.goto(`${url}/report/portfolio?address=${ADDRESS}`))?.status()).toBe(401);
      const bad = await page.goto(`${url}/report/portfolio?address=${ADDRESS}&interval=1w&token=${TOKEN}`);
      expect(bad?.status()).toBe(400);
      await expect(page.locator('p').first().textContent()).resolves.toContain('invalid interval "1w"');
      const unknown = await page.goto(`${url}/report/portfolio?address=0x${'9'.repeat(64)}&token=${TOKEN}`);
      expect(unknown?.status()).toBe(400);
      await expect(page.locator('p').first().textContent()).resolves.toContain('is not watched');
    } finally {
      await page.close();
    }
  });
});

describe('the price report file', () => {
  it('draws a chart per token with every bucket, gaps shaded, and its OHLC table', async () => {
    const range = reportRange(
      { from: new Date('2026-11-19T00:00:00Z'), to: new Date('2026-11-22T00:00:00Z'), interval: '2h' },
      NOW,
    );
    const report = await openPriceReport(harness.database, { tokens: [SUI, USDC], range, now: NOW });
    const file = join(folder, 'prices.html');
    await writeFileAtomically(file, (sink) => writePriceReport(report, 'html', sink));
    const [buckets] = await harness.database.sql<{ n: number }[]>`
      select count(distinct date_bin('2 hours', price_time, '2026-11-19T00:00:00Z'))::int as n from token_prices
      where coin_type = ${SUI} and price_time >= '2026-11-19T00:00:00Z' and price_time < '2026-11-22T00:00:00Z'`;

    const { page, errors, requests } = await watchedPage();
    try {
      await page.goto(`file://${file}`);
      await expect(page.locator('svg.ohlc-chart').count()).resolves.toBe(2);
      const sui = page.locator(`section.token[data-coin-type="${SUI}"]`);
      await expect(sui.locator('svg.ohlc-chart line.ohlc-range').count()).resolves.toBe(buckets!.n);
      await expect(sui.locator('svg.ohlc-chart rect.gap').count()).resolves.toBe(36 - buckets!.n);
      await expect(sui.locator('table.ohlc tbody tr').count()).resolves.toBe(36);
      await expect(sui.locator('table.ohlc tbody tr.gap').count()).resolves.toBe(36 - buckets!.n);
      const close = await sui.locator('svg.ohlc-chart path.ohlc-close').boundingBox();
      expect(close!.width).toBeGreaterThan(300);
      expect(errors).toEqual([]);
      expect(requests).toEqual([`file://${file}`]);
      await takeScreenshot(page, 'report-prices.png', { fullPage: true });
    } finally {
      await page.close();
    }
  });
});
