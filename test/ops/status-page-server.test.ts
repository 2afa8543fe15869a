import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUsdPrice } from '../../src/ops/figures.ts';
import { closeQueues, createQueues, type Queues } from '../../src/queue/queues.ts';
import { createRedisConnection, type RedisClient } from '../../src/runtime/redis-connection.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { startOpsServer, type RunningOpsServer } from './ops-test-server.ts';
import { SEED_NOW, SEEDED_TOKENS, seedStatusRows } from './status-seed.ts';

let database: TestDatabase;
let testRedis: TestRedis;
let redis: RedisClient;
let queues: Queues;
let server: RunningOpsServer;

beforeAll(async () => {
  database = await createTestDatabase();
  await seedStatusRows(database);
  testRedis = createTestRedis();
  redis = createRedisConnection(testRedis.url, 'producer');
  queues = createQueues(redis, testRedis.prefix);
  await queues.prices.add('prices', { batch: 0 }, { jobId: 'prices-batch-0-x' });
  server = await startOpsServer({ database, redis, queues, now: () => SEED_NOW });
});

afterAll(async () => {
  await server?.close();
  await closeQueues(queues);
  redis.disconnect();
  await testRedis.cleanup();
  await database.drop();
});

/** The HTML of one element, from its opening tag with `attribute` to the matching closing tag name. */
function element(page: string, tag: string, attribute: string): string {
  const start = page.indexOf(`<${tag} ${attribute}`);
  if (start < 0) throw new Error(`no <${tag} ${attribute}> in the page`);
  return page.slice(start, page.indexOf(`</${tag}>`, start) + tag.length + 3);
}

describe('status page over seeded rows', () => {
  let page: string;
  beforeAll(async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    page = await response.text();
  });

  it('shows each dataset with its freshness and last tick', () => {
    const prices = element(page, 'tr', 'data-dataset="prices"');
    expect(prices).toContain('<td class="num">2</td>');
    expect(prices).toContain('1 min 0 s');
    expect(prices).toContain('2026-11-21 11:59:00 UTC');
    expect(prices).toContain('2026-11-21 11:58:00 UTC');
    expect(element(page, 'tr', 'data-dataset="positions"')).toContain('15 min 0 s');
    expect(element(page, 'tr', 'data-dataset="nfts"')).toContain('no successful run yet');
  });

  it('shows queue depths read from Redis', () => {
    const prices = element(page, 'tr', 'data-queue="prices"');
    expect(prices).toContain('<td class="num" data-state="waiting">1</td>');
  });

  it('lists failed and retrying runs and quarantined payloads, escaped', () => {
    const failures = element(page, 'section', 'id="failures"');
    expect(failures).toContain('0xdead');
    expect(failures).toContain('<span class="pill failed">failed</span>');
    expect(failures).toContain('<span class="pill retrying">retrying</span>');
    expect(failures).toContain('upstream answered 500 &lt;html&gt;');
    expect(failures).not.toContain('batch-0');
    const quarantine = element(page, 'section', 'id="quarantine"');
    expect(quarantine).toContain('/v2/address/0xfeed/positions');
    expect(quarantine).toContain('data[0].positionId: expected string');
  });

  it('charts every watched token with one vertex per price of the last 24 hours', () => {
    for (const token of SEEDED_TOKENS) {
      // A token card ends with its chart.
      const start = page.indexOf(`<div class="token" data-coin-type="${token.coinType}"`);
      expect(start).toBeGreaterThan(0);
      const card = page.slice(start, page.indexOf('</svg>', start));
      expect(card).toContain(`<span class="name">${token.symbol}</span>`);
      // The latest price for the eye (six significant digits), exact in the title.
      const latest = token.prices.at(-1)!.price;
      expect(card).toContain(`<span class="latest"><span title="${latest}">${formatUsdPrice(latest)}</span></span>`);
      const path = /<path class="series price-line" d="([^"]*)" data-points="(\d+)"/.exec(card)!;
      // The price 30 hours old is outside the window.
      expect(path[1]!.split(' ')).toHaveLength(token.prices.length);
      expect(Number(path[2])).toBe(token.prices.length);
    }
  });

  it('lists failures newest first by id, past ten (ids compared as numbers, not text)', async () => {
    await database.sql`
      insert into ingestion_runs (job_id, dataset, target, tick, status, attempts, started_at)
      select 'positions-0x' || i || '-1', 'positions', '0x' || i, ${SEED_NOW}, 'failed', 1, ${SEED_NOW}
      from generate_series(1, 12) i`;
    const page = await (await fetch(`${server.url}/`)).text();
    const ids = [...element(page, 'section', 'id="failures"').matchAll(/data-run-id="(\d+)"/g)].map((match) =>
      Number(match[1]),
    );
    expect(ids.length).toBe(14);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('shows the quota: the seeded watchlist fits, with the jobs superseded in the hour before the page clock', () => {
    const quota = element(page, 'section', 'id="quota"');
    expect(quota).toContain('<h2>Quota</h2>');
    // Two watched tokens: one price request a minute of the default 40/min.
    expect(quota).toContain(
      'Quota <span class="mono">40/min</span> (UPSTREAM_RATE): 2,400 req/h; the watchlist (2 token(s), 0 address(es)) needs 60.04 req/h.',
    );
    expect(quota).toContain('<span class="pill fits">fits (3% of the quota)</span>');
    expect(element(page, 'tr', 'data-quota-dataset="prices"')).toContain(
      '<td class="num needed">60</td><td class="num granted">60</td><td class="cadence">every 1 min</td>',
    );
    // Superseded 15 and 30 minutes before the page's clock; the one 2 hours before is not counted.
    const positions = element(page, 'tr', 'data-quota-dataset="positions"');
    expect(positions).toContain('<td class="cadence">no watched addresses</td>');
    expect(positions).toContain('<td class="num superseded">2</td>');
  });

  it('marks the quota over budget when the watchlist needs more than it allows', async () => {
    const small = await startOpsServer({
      database,
      redis,
      queues,
      now: () => SEED_NOW,
      options: { UPSTREAM_RATE: '30/h' },
    });
    try {
      const quota = element(await (await fetch(`${small.url}/`)).text(), 'section', 'id="quota"');
      expect(quota).toContain('<section id="quota" class="over-budget"><h2>Quota: over budget</h2>');
      expect(quota).toContain(
        '<span class="pill over">over budget: needs 2.0x the quota: prices every 2 min at best</span> <span class="muted">To fit: a quota of at least 61/h, fewer addresses or tokens, or slower crons.</span>',
      );
      const metrics = await (await fetch(`${small.url}/metrics`)).text();
      expect(metrics).toContain(`chaintap_upstream_available_requests_per_second ${30 / 3600}\n`);
    } finally {
      await small.close();
    }
  });

  it('exports what the watchlist needs of the quota on /metrics', async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('# TYPE chaintap_upstream_required_requests_per_second gauge\n');
    expect(metrics).toContain(`chaintap_upstream_required_requests_per_second{dataset="prices"} ${60 / 3600}\n`);
    expect(metrics).toContain('chaintap_upstream_required_requests_per_second{dataset="positions"} 0\n');
    expect(metrics).toContain('chaintap_upstream_required_requests_per_second{dataset="nfts"} 0\n');
    expect(metrics).toContain('# TYPE chaintap_upstream_available_requests_per_second gauge\n');
    expect(metrics).toContain(`chaintap_upstream_available_requests_per_second ${40 / 60}\n`);
  });

  it('exports dataset freshness from the watermarks on /metrics', async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('chaintap_dataset_freshness_seconds{dataset="prices"} 60\n');
    expect(metrics).toContain('chaintap_dataset_freshness_seconds{dataset="positions"} 900\n');
    // The same as a time: the newest successful tick, in Unix seconds (freshness = now - it).
    expect(metrics).toContain(
      `chaintap_dataset_last_success_timestamp_seconds{dataset="prices"} ${(SEED_NOW.getTime() - 60_000) / 1000}\n`,
    );
    expect(metrics).toContain(
      `chaintap_dataset_last_success_timestamp_seconds{dataset="positions"} ${(SEED_NOW.getTime() - 900_000) / 1000}\n`,
    );
    expect(metrics).toContain('chaintap_queue_jobs{queue="prices",state="waiting"} 1\n');
  });
});
