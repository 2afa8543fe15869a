import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/client.ts';
import { closeQueues, createQueues, type Queues } from '../../src/queue/queues.ts';
import { createRedisConnection, type RedisClient } from '../../src/runtime/redis-connection.ts';
import { upstreamPaceKey } from '../../src/queue/redis-keys.ts';
import { createSharedRateLimiter } from '../../src/upstream/rate-limiter.ts';
import { requireBinaries } from '../support/binaries.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { startOpsServer, type RunningOpsServer } from './ops-test-server.ts';

let database: TestDatabase;
let testRedis: TestRedis;
let redis: RedisClient;
let queues: Queues;
const servers: RunningOpsServer[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  testRedis = createTestRedis();
  redis = createRedisConnection(testRedis.url, 'producer');
  queues = createQueues(redis, testRedis.prefix);
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

afterAll(async () => {
  await closeQueues(queues);
  redis.disconnect();
  await testRedis.cleanup();
  await database.drop();
});

async function start(
  options: Parameters<typeof startOpsServer>[0]['options'] = {},
  overrides: Partial<Parameters<typeof startOpsServer>[0]> = {},
) {
  const server = await startOpsServer({ database, redis, queues, options, ...overrides });
  servers.push(server);
  return server;
}

/** `promtool check metrics` (Debian's prometheus package, .ci/run installs it) over an exposition. */
function promtoolCheck(exposition: string): { status: number | null; output: string } {
  requireBinaries('promtool');
  const run = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('ops server', () => {
  it('listens on the loopback address by default and answers /healthz', async () => {
    const server = await start();
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('is ready when Postgres and Redis answer, and answers 503 when Postgres is unreachable', async () => {
    const server = await start();
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, checks: { postgres: { ok: true }, redis: { ok: true } } });

    // A pool pointing at a port nothing listens on: every query fails to connect.
    const unreachable = createDatabase('postgres://postgres@127.0.0.1:1/chaintap', { max: 1 });
    try {
      const down = await start({}, { database: unreachable });
      const response = await fetch(`${down.url}/readyz`);
      expect(response.status).toBe(503);
      const body = await response.json();
      expect(body).toMatchObject({
        ready: false,
        checks: { postgres: { ok: false, error: expect.stringMatching(/ECONNREFUSED/) }, redis: { ok: true } },
      });
      // /healthz only says the process is alive.
      expect((await fetch(`${down.url}/healthz`)).status).toBe(200);
    } finally {
      await unreachable.close();
    }
  });

  it('answers 503 when its Redis connection is closed', async () => {
    const closed = createRedisConnection(testRedis.url, 'producer');
    await new Promise((resolve) => closed.once('ready', resolve));
    await closed.quit();
    const server = await start({}, { redis: closed });
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ checks: { postgres: { ok: true }, redis: { ok: false } } });
  });

  it('answers 503 within its deadline when Redis is unreachable and commands queue up', async () => {
    // A worker connection queues commands while it reconnects: PING would wait forever.
    const unreachable = createRedisConnection('redis://127.0.0.1:1', 'worker');
    unreachable.on('error', () => {});
    try {
      const server = await start({}, { redis: unreachable });
      const response = await fetch(`${server.url}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({
        checks: { postgres: { ok: true }, redis: { ok: false, error: 'Error: Redis did not answer within 3000 ms' } },
      });
    } finally {
      unreachable.disconnect();
    }
  });

  it('exports the named metrics and moves them when they are counted', async () => {
    const server = await start();
    const { metrics } = server.context;
    const before = await (await fetch(`${server.url}/metrics`)).text();
    for (const name of [
      'chaintap_upstream_requests_total',
      'chaintap_upstream_request_duration_seconds',
      'chaintap_upstream_retries_total',
      'chaintap_upstream_rate_limited_total',
      'chaintap_rate_limit_wait_seconds_total',
      'chaintap_jobs_total',
      'chaintap_job_duration_seconds',
      'chaintap_rows_written_total',
      'chaintap_quarantined_payloads_total',
      'chaintap_queue_jobs',
      'chaintap_dataset_freshness_seconds',
      'chaintap_upstream_required_requests_per_second',
      'chaintap_upstream_available_requests_per_second',
    ]) {
      expect(before, name).toContain(`# TYPE ${name} `);
    }
    // Node's process metrics under their standard names, as stock dashboards query them.
    for (const line of [
      '# TYPE process_cpu_seconds_total counter',
      '# TYPE process_resident_memory_bytes gauge',
      '# TYPE nodejs_heap_size_used_bytes gauge',
      '# TYPE nodejs_eventloop_lag_p99_seconds gauge',
      '# TYPE nodejs_active_handles gauge',
    ]) {
      expect(before.split('\n'), line).toContain(line);
    }
    expect(before).not.toMatch(/^# TYPE chaintap_(process|nodejs)_/m);
    expect(sample(before, 'chaintap_upstream_requests_total{operation="token_price",status="200"}')).toBeUndefined();

    metrics.upstreamRequests.inc({ operation: 'token_price', status: '200' }, 3);
    metrics.upstreamRequests.inc({ operation: 'positions', status: '429' });
    metrics.upstreamRateLimited.inc({ operation: 'positions' });
    metrics.upstreamLatency.observe({ operation: 'token_price' }, 0.2);
    metrics.rateLimitWaitSeconds.inc(1.5);
    metrics.jobs.inc({ queue: 'prices', outcome: 'completed' });
    metrics.rowsWritten.inc({ table: 'token_prices' }, 50);
    metrics.quarantined.inc({ dataset: 'positions' });

    const after = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(after, 'chaintap_upstream_requests_total{operation="token_price",status="200"}')).toBe(3);
    expect(sample(after, 'chaintap_upstream_requests_total{operation="positions",status="429"}')).toBe(1);
    expect(sample(after, 'chaintap_upstream_rate_limited_total{operation="positions"}')).toBe(1);
    expect(sample(after, 'chaintap_upstream_request_duration_seconds_count{operation="token_price"}')).toBe(1);
    expect(sample(after, 'chaintap_upstream_request_duration_seconds_bucket{le="0.25",operation="token_price"}')).toBe(
      1,
    );
    expect(sample(after, 'chaintap_rate_limit_wait_seconds_total')).toBe(1.5);
    expect(sample(after, 'chaintap_jobs_total{queue="prices",outcome="completed"}')).toBe(1);
    expect(sample(after, 'chaintap_rows_written_total{table="token_prices"}')).toBe(50);
    expect(sample(after, 'chaintap_quarantined_payloads_total{dataset="positions"}')).toBe(1);
    // As Prometheus's own linter reads it: names, types, help, suffixes.
    expect(promtoolCheck(after)).toEqual({ status: 0, output: '' });
  });

  it('reads queue depths from Redis at scrape time', async () => {
    const server = await start();
    const empty = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(empty, 'chaintap_queue_jobs{queue="positions",state="waiting"}')).toBe(0);

    await queues.positions.add('positions', { address: '0x1' }, { jobId: 'positions-0x1-1' });
    await queues.positions.add('positions', { address: '0x2' }, { jobId: 'positions-0x2-1' });
    await queues.nfts.add('nfts', { address: '0x1' }, { jobId: 'nfts-0x1-1', delay: 60_000 });

    const filled = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(filled, 'chaintap_queue_jobs{queue="positions",state="waiting"}')).toBe(2);
    expect(sample(filled, 'chaintap_queue_jobs{queue="nfts",state="delayed"}')).toBe(1);
    expect(sample(filled, 'chaintap_queue_jobs{queue="prices",state="waiting"}')).toBe(0);
    await queues.positions.obliterate({ force: true });
    await queues.nfts.obliterate({ force: true });
  });

  it('exports the quota from the settings, and what the watchlist needs of it only while Postgres answers', async () => {
    const unreachable = createDatabase('postgres://postgres@127.0.0.1:1/chaintap', { max: 1 });
    try {
      const server = await start({ UPSTREAM_RATE: '2/s' }, { database: unreachable });
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(sample(metrics, 'chaintap_upstream_available_requests_per_second')).toBe(2);
      expect(metrics).not.toContain('chaintap_upstream_required_requests_per_second{');
      expect(server.logLines.join('')).toContain('could not read the watchlist for the capacity plan');
    } finally {
      await unreachable.close();
    }
  });

  it('serves Bull Board under /queues with the queues in its API', async () => {
    const server = await start();
    const page = await fetch(`${server.url}/queues`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const api = await fetch(`${server.url}/queues/api/queues`);
    expect(api.status).toBe(200);
    const body = (await api.json()) as { queues: { name: string }[] };
    expect(body.queues.map((queue) => queue.name).sort()).toEqual([
      'maintenance',
      'nfts',
      'positions',
      'price-catch-up',
      'prices',
    ]);
  });

  it('exports a pause of the upstream requests in force with its end, and nothing once it is over', async () => {
    const server = await start({ QUEUE_PREFIX: testRedis.prefix });
    const series = 'chaintap_upstream_paused_until_seconds{reason="rate_limited"}';
    expect(sample(await (await fetch(`${server.url}/metrics`)).text(), series)).toBeUndefined();
    const pacer = createSharedRateLimiter({ redis, key: upstreamPaceKey(testRedis.prefix), rps: 1 });
    const until = await pacer.pause(1_500, 'HTTP 429 (prices): Retry-After 1.5 s');
    expect(sample(await (await fetch(`${server.url}/metrics`)).text(), series)).toBe(until.getTime() / 1000);
    const page = await (await fetch(`${server.url}/`)).text();
    expect(page).toContain(`data-paused-until="${until.toISOString()}"`);
    expect(page).toContain('HTTP 429 (prices): Retry-After 1.5 s');
    await new Promise((resolve) => setTimeout(resolve, until.getTime() - Date.now() + 50));
    expect(sample(await (await fetch(`${server.url}/metrics`)).text(), series)).toBeUndefined();
  });

  it('leaves /metrics out when METRICS_ENABLED is false', async () => {
    const server = await start({ METRICS_ENABLED: 'false' });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });
});

describe('OPS_TOKEN', () => {
  const token = 'ops-secret-token-3f9a';
  const protectedPaths = ['/', '/metrics', '/queues', '/queues/api/queues'];

  it('is required on every route but /healthz and /readyz', async () => {
    const server = await start({ OPS_TOKEN: token });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    for (const path of [...protectedPaths, '/no-such-route']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(401);
      expect(await response.text(), path).not.toContain(token);
    }
    for (const path of protectedPaths) {
      const wrong = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}x` } });
      expect(wrong.status, path).toBe(401);
      const wrongQuery = await fetch(`${server.url}${path}?token=${token.slice(0, -1)}`);
      expect(wrongQuery.status, path).toBe(401);
    }
  });

  it('accepts the token as a bearer header or a ?token= query', async () => {
    const server = await start({ OPS_TOKEN: token });
    for (const path of protectedPaths) {
      const withHeader = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(withHeader.status, path).toBe(200);
      const withQuery = await fetch(`${server.url}${path}?token=${encodeURIComponent(token)}`);
      expect(withQuery.status, path).toBe(200);
    }
  });

  it("sets a cookie on a ?token= visit so that Bull Board's own requests pass", async () => {
    const server = await start({ OPS_TOKEN: token });
    const visit = await fetch(`${server.url}/queues?token=${encodeURIComponent(token)}`);
    const cookie = visit.headers.get('set-cookie');
    expect(cookie).toMatch(/^chaintap_ops_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(token);
    const api = await fetch(`${server.url}/queues/api/queues`, { headers: { cookie: cookie!.split(';')[0]! } });
    expect(api.status).toBe(200);
    const forged = await fetch(`${server.url}/queues/api/queues`, {
      headers: { cookie: 'chaintap_ops_session=guess' },
    });
    expect(forged.status).toBe(401);
  });

  it('carries the token on the status page links and never logs it', async () => {
    // Unreachable Postgres: readiness, metrics and the status page all log what failed.
    const unreachable = createDatabase('postgres://postgres@127.0.0.1:1/chaintap', { max: 1 });
    try {
      const server = await start({ OPS_TOKEN: token }, { database: unreachable });
      const page = await (await fetch(`${server.url}/?token=${encodeURIComponent(token)}`)).text();
      expect(page).toContain(`href="/queues?token=${token}"`);
      expect(page).toContain(`href="/metrics?token=${token}"`);
      expect((await fetch(`${server.url}/readyz?token=${encodeURIComponent(token)}`)).status).toBe(503);
      expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
        200,
      );
      await fetch(`${server.url}/metrics?token=wrong-${token}`);
      expect(server.logLines.length).toBeGreaterThan(1);
      expect(server.logLines.join('')).not.toContain(token);
    } finally {
      await unreachable.close();
    }
  });
});
