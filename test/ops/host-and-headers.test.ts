import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOpsStores, startOpsServer, type OpsStores, type RunningOpsServer } from './ops-test-server.ts';

// The ops server over real HTTP, with the Host header a DNS-rebinding page's browser would send.
let stores: OpsStores;
let open: RunningOpsServer;
let guarded: RunningOpsServer;
const TOKEN = 'ops-token-5a0c9e71';

beforeAll(async () => {
  stores = await openOpsStores();
  open = await startOpsServer({
    ...stores,
    database: stores.database,
    options: { OPS_ALLOWED_HOSTS: 'ops.internal, [fd00::5], chaintap_ops' },
  });
  guarded = await startOpsServer({ ...stores, database: stores.database, options: { OPS_TOKEN: TOKEN } });
});

afterAll(async () => {
  await open.close();
  await guarded.close();
  await stores.close();
});

async function get(server: RunningOpsServer, path: string, headers: Record<string, string> = {}) {
  const response = await request(`${server.url}${path}`, { headers });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}

describe('the ops server without OPS_TOKEN', () => {
  it('answers requests addressed to a loopback name or an allowed host, on any port', async () => {
    const port = new URL(open.url).port;
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      'LOCALHOST',
      'ops.internal:443',
      '[fd00::5]:8080',
      'chaintap_ops:9464',
    ]) {
      expect((await get(open, '/healthz', { host })).status, host).toBe(200);
    }
  });

  it('refuses any other Host with 403 naming OPS_ALLOWED_HOSTS, on every path', async () => {
    const hosts = [
      'rebind.example:9464',
      'ops.internal.rebind.example',
      'app.localhost',
      '127.0.0.1.nip.io',
      'localhost@rebind.example',
    ];
    for (const host of hosts) {
      for (const path of [
        '/',
        '/metrics',
        '/status.json',
        '/queues/api/queues',
        '/report/prices?tokens=0x2::sui::SUI',
        '/healthz',
      ]) {
        const answer = await get(open, path, { host });
        expect(answer.status, `${host} ${path}`).toBe(403);
        expect(JSON.parse(answer.body).message, `${host} ${path}`).toContain('OPS_ALLOWED_HOSTS');
      }
    }
  });
});

describe('the ops server with OPS_TOKEN', () => {
  it('answers any Host as before: the token is what counts', async () => {
    const host = 'ops.rebind.example';
    expect((await get(guarded, '/metrics', { host })).status).toBe(401);
    expect((await get(guarded, '/metrics', { host, authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });
});

describe('every answer', () => {
  it('may not be framed nor sniffed; the queue board gets a policy of its own', async () => {
    const pages = {
      '/': "default-src 'none'",
      // A report's error page (no prices stored) is a page too.
      '/report/prices?tokens=0x2::sui::SUI': "default-src 'none'",
      '/queues': "script-src 'self'",
      '/queues/api/queues': "script-src 'self'",
      '/metrics': "default-src 'none'",
      '/healthz': "default-src 'none'",
      '/no-such-page': "default-src 'none'",
    };
    for (const [path, policy] of Object.entries(pages)) {
      const answer = await get(open, path);
      expect(answer.status, path).toBeLessThan(500);
      const csp = String(answer.headers['content-security-policy']);
      expect(csp, path).toContain(policy);
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(answer.headers['x-content-type-options'], path).toBe('nosniff');
      expect(answer.headers['x-frame-options'], path).toBe('DENY');
    }
    // The board loads only from its own path (no font or script of another site).
    const board = await get(open, '/queues');
    expect(board.headers['content-security-policy']).not.toMatch(/https?:/);
  });
});
