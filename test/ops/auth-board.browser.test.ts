import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeQueues, createQueues, type Queues } from '../../src/queue/queues.ts';
import { createRedisConnection, type RedisClient } from '../../src/runtime/redis-connection.ts';
import { launchChromium } from '../support/chromium.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { startOpsServer, type RunningOpsServer } from './ops-test-server.ts';

const READ = 'browser-read-token-51d2';
const ADMIN = 'browser-admin-token-c7e0';

let database: TestDatabase;
let testRedis: TestRedis;
let redis: RedisClient;
let queues: Queues;
let server: RunningOpsServer;
let browser: Browser;

beforeAll(async () => {
  database = await createTestDatabase();
  testRedis = createTestRedis();
  redis = createRedisConnection(testRedis.url, 'producer');
  queues = createQueues(redis, testRedis.prefix);
  await queues.nfts.add('nfts', { address: '0xw' }, { jobId: 'w1' });
  server = await startOpsServer({ database, redis, queues, options: { OPS_TOKEN: READ, OPS_ADMIN_TOKEN: ADMIN } });
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

/** Logs in to the board with `?token=`, then sends the request the board's pause button sends, from the page. */
async function pauseFromBoard(token: string): Promise<{ status: number; cookies: string[] }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}/queues/queue/nfts?token=${token}`);
    await page.getByText('nfts', { exact: true }).first().waitFor({ timeout: 15_000 });
    const status = await page.evaluate(
      async () => (await fetch('/queues/api/queues/nfts/pause', { method: 'PUT' })).status,
    );
    const cookies = (await context.cookies()).map((cookie) => `${cookie.name}=${cookie.value}`);
    return { status, cookies };
  } finally {
    await context.close();
  }
}

describe('Bull Board in headless Chromium', () => {
  it("refuses a board action from a browser logged in with OPS_TOKEN, and the browser's cookie holds no token", async () => {
    const { status, cookies } = await pauseFromBoard(READ);
    expect(status).toBe(403);
    expect(await queues.nfts.isPaused()).toBe(false);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^chaintap_ops_session=/);
    expect(cookies[0]).not.toContain(READ);
  });

  it('performs it for a browser logged in with OPS_ADMIN_TOKEN', async () => {
    const { status, cookies } = await pauseFromBoard(ADMIN);
    expect(status).toBe(200);
    expect(await queues.nfts.isPaused()).toBe(true);
    expect(cookies.join(';')).not.toContain(ADMIN);
  });
});
