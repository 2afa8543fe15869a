import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueues } from '../../src/queue/queues.ts';
import { createRedisConnection } from '../../src/runtime/redis-connection.ts';
import { Status } from '../support/json-shapes.ts';
import { openOpsStores, startOpsServer, type OpsStores, type RunningOpsServer } from './ops-test-server.ts';
import { SEED_NOW, seedStatusRows } from './status-seed.ts';

// GET /status.json: the document of `chaintap status --json` (docs/operations.md, "JSON output"),
// behind OPS_TOKEN like the status page.
const TOKEN = 'read-token-51f0c2e7';

let stores: OpsStores;
let server: RunningOpsServer;

beforeAll(async () => {
  stores = await openOpsStores();
  await seedStatusRows(stores.database);
  await stores.queues.prices.add('prices', { batch: 0 }, { jobId: 'prices-batch-0-x' });
  server = await startOpsServer({ ...stores, options: { OPS_TOKEN: TOKEN }, now: () => SEED_NOW });
});

afterAll(async () => {
  await server?.close();
  await stores?.close();
});

describe('GET /status.json', () => {
  it('serves the status in the documented shape of `chaintap status --json`', async () => {
    const response = await fetch(`${server.url}/status.json`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const status = Status.parse(await response.json());
    expect(status.now).toBe(SEED_NOW.toISOString());
    expect(
      status.datasets.map(({ dataset, targets, newestTick, ageSeconds }) => [dataset, targets, newestTick, ageSeconds]),
    ).toEqual([
      ['positions', 1, '2026-11-21T11:45:00.000Z', 900],
      ['prices', 2, '2026-11-21T11:59:00.000Z', 60],
    ]);
    expect(status.queues.depths.find((row) => row.queue === 'prices')?.counts.waiting).toBe(1);
    expect(status.queues.redis).toBe(new URL(stores.testRedis.url).host);
    expect(status.addresses).toEqual({ count: 0, listed: [] });
    expect(status.quota.plan.fits).toBe(true);
    expect(status.quota.pause).toBeNull();
  });

  it('needs the read token, as the status page does: a header, or ?token= from a browser', async () => {
    const refused = await fetch(`${server.url}/status.json`);
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain('datasets');
    expect((await fetch(`${server.url}/status.json`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${server.url}/status.json?token=${TOKEN}`)).status).toBe(200);
  });

  it('answers 503 with the reason within its deadline when Redis does not answer', async () => {
    // A worker connection queues commands while it reconnects: without the deadline it would wait forever.
    const unreachable = createRedisConnection('redis://127.0.0.1:1', 'worker');
    unreachable.on('error', () => {});
    const down = await startOpsServer({
      database: stores.database,
      redis: unreachable,
      queues: createQueues(unreachable, 'x'),
    });
    try {
      const started = Date.now();
      const response = await fetch(`${down.url}/status.json`);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        error: 'unavailable',
        message: 'Postgres or Redis did not answer within 3000 ms',
      });
      expect(Date.now() - started).toBeLessThan(6_000);
    } finally {
      await down.close();
      unreachable.disconnect();
    }
  });
});
