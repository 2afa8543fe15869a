import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { pathVertices, takeScreenshot } from '../support/screenshots.ts';
import { closeQueues, createQueues, type Queues } from '../../src/queue/queues.ts';
import { createRedisConnection, type RedisClient } from '../../src/runtime/redis-connection.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { startOpsServer, type RunningOpsServer } from './ops-test-server.ts';
import { SEED_NOW, SEEDED_TOKENS, seedStatusRows } from './status-seed.ts';

/**
 * The status page as a person sees it: Debian's Chromium, headless, loads the page from a server over
 * seeded rows, and the SVG charts must be drawn with every price. The screenshot is left in
 * test-results/status-page.png. CI installs Chromium (`apt-get install -y chromium`, see .ci/run).
 */
const TOKEN = 'browser-test-ops-token';

let database: TestDatabase;
let testRedis: TestRedis;
let redis: RedisClient;
let queues: Queues;
let server: RunningOpsServer;
let browser: Browser;

beforeAll(async () => {
  database = await createTestDatabase();
  await seedStatusRows(database);
  testRedis = createTestRedis();
  redis = createRedisConnection(testRedis.url, 'producer');
  queues = createQueues(redis, testRedis.prefix);
  await queues.positions.add('positions', { address: '0xabc' }, { jobId: 'positions-0xabc-1' });
  // A quota of 30 requests an hour: the two watched tokens' price a minute needs twice that.
  server = await startOpsServer({
    database,
    redis,
    queues,
    now: () => SEED_NOW,
    options: { OPS_TOKEN: TOKEN, UPSTREAM_RATE: '30/h' },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (queues) await closeQueues(queues);
  redis?.disconnect();
  await testRedis?.cleanup();
  await database?.drop();
});

describe('status page in headless Chromium', () => {
  it("draws each watched token's prices as a line with one vertex per price", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      const response = await page.goto(`${server.url}/?token=${TOKEN}`);
      expect(response?.status()).toBe(200);
      expect(await page.title()).toBe('chaintap status');

      for (const token of SEEDED_TOKENS) {
        const line = page.locator(`.token[data-coin-type="${token.coinType}"] svg.price-chart path.price-line`);
        expect(pathVertices(await line.getAttribute('d'))).toBe(token.prices.length);
        const box = await line.boundingBox();
        expect(box!.width).toBeGreaterThan(200);
        expect(box!.height).toBeGreaterThan(40);
        await expect(page.locator(`.token[data-coin-type="${token.coinType}"] .name`).textContent()).resolves.toBe(
          token.symbol,
        );
      }
      await expect(page.locator('tr[data-dataset="prices"] .freshness').textContent()).resolves.toBe('1 min 0 s');
      await expect(page.locator('tr[data-queue="positions"] [data-state="waiting"]').textContent()).resolves.toBe('1');
      await expect(page.locator('#failures .pill.failed').count()).resolves.toBe(1);
      await expect(page.locator('#quarantine tbody tr').count()).resolves.toBe(1);

      // The over-budget quota is marked: a red frame, the title, the verdict and the real cadence.
      const quota = page.locator('section#quota');
      await expect(quota.locator('h2').textContent()).resolves.toBe('Quota: over budget');
      // As the browser computed it (this project's TypeScript has no DOM types: the page's global, typed here).
      const borderColor = await quota.evaluate(
        (element) =>
          (
            globalThis as unknown as { getComputedStyle(element: unknown): { borderTopColor: string } }
          ).getComputedStyle(element).borderTopColor,
      );
      expect(borderColor).toBe('rgb(207, 34, 46)');
      await expect(quota.locator('.pill.over').textContent()).resolves.toBe(
        'over budget: needs 2.0x the quota: prices every 2 min at best',
      );
      await expect(quota.locator('.pill.over').isVisible()).resolves.toBe(true);
      await expect(quota.locator('tr[data-quota-dataset="prices"] .cadence').textContent()).resolves.toBe(
        'every 2 min at best',
      );
      await expect(quota.locator('tr[data-quota-dataset="positions"] .superseded').textContent()).resolves.toBe('2');

      await takeScreenshot(page, 'status-page.png', { fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('opens Bull Board from the page link, its own requests passing with the cookie the token visit set', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${server.url}/?token=${TOKEN}`);
      await page.click('text=Queues (Bull Board)');
      await page.waitForURL(/\/queues/);
      // The board's UI lists the queues it fetched from /queues/api/queues.
      await page.getByText('positions', { exact: true }).first().waitFor({ timeout: 15_000 });
      await expect(page.getByText('maintenance', { exact: true }).first().isVisible()).resolves.toBe(true);
      await page.waitForLoadState('networkidle');
      await takeScreenshot(page, 'bull-board.png');
    } finally {
      await page.close();
    }
  });

  it('is refused without the token', async () => {
    const page = await browser.newPage();
    try {
      const response = await page.goto(`${server.url}/`);
      expect(response?.status()).toBe(401);
    } finally {
      await page.close();
    }
  });
});
