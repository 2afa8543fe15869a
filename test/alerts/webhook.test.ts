import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWebhook } from '../../src/alerts/rules.ts';
import { givesUp, GIVE_UP_AFTER_MS, MAX_RETRY_DELAY_MS, postEvent, retryDelayMs } from '../../src/alerts/webhook.ts';
import { createWebhookRoute, networkOf, type WebhookRoute } from '../../src/alerts/webhook-destination.ts';

// postEvent against a local server that answers by path.
let server: Server;
let base: string;
const seen: { headers: Record<string, unknown>; body: string; method: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ headers: req.headers, body, method: req.method ?? '' });
      const [status, extra] = ({
        '/ok/secret-token': [200, {}],
        '/busy/secret-token': [503, { 'retry-after': '7' }],
        '/busy-until/secret-token': [429, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() }],
        '/gone/secret-token': [404, {}],
        '/moved/secret-token': [302, { location: '/ok/secret-token' }],
      }[req.url ?? ''] ?? [500, {}]) as [number, Record<string, string>];
      res.writeHead(status, extra);
      res.end(status === 404 ? `no hook at ${req.url}` : status === 200 ? 'ok' : 'busy');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
// The test's receiver is on loopback: opened as ALERT_WEBHOOK_NETWORKS=loopback would.
let local: WebhookRoute;
let publicOnly: WebhookRoute;
beforeAll(() => {
  local = createWebhookRoute(['loopback']);
  publicOnly = createWebhookRoute([]);
});
afterAll(async () => {
  await Promise.all([local.close(), publicOnly.close()]);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const hook = (path: string) => toWebhook({ url: `${base}${path}`, name: 'test-hook' });

describe('postEvent', () => {
  it('POSTs the JSON with the Idempotency-Key; any 2xx is a delivery', async () => {
    expect(await postEvent(hook('/ok/secret-token'), '{"id":"k1"}', 'k1', local)).toEqual({ ok: true, status: 200 });
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      body: '{"id":"k1"}',
      headers: { 'idempotency-key': 'k1', 'content-type': 'application/json' },
    });
  });

  it('retries server errors (with their Retry-After), fails a 4xx or a redirect at once, keeping only the status', async () => {
    expect(await postEvent(hook('/busy/secret-token'), '{}', 'k2', local)).toEqual({
      ok: false,
      retryable: true,
      error: 'HTTP 503 (Service Unavailable)',
      retryAfterMs: 7_000,
    });
    // Retry-After as an HTTP date (RFC 9110), read by the one parser the upstream client uses too.
    const until = await postEvent(hook('/busy-until/secret-token'), '{}', 'k2b', local);
    expect(until).toMatchObject({ ok: false, retryable: true });
    expect(until.ok === false && until.retryAfterMs).toBeGreaterThan(55_000);
    expect(until.ok === false && until.retryAfterMs).toBeLessThanOrEqual(60_000);
    const gone = await postEvent(hook('/gone/secret-token'), '{}', 'k3', local);
    expect(gone).toEqual({ ok: false, retryable: false, error: 'HTTP 404 (Not Found)' });
    expect(await postEvent(hook('/moved/secret-token'), '{}', 'k4', local)).toMatchObject({
      ok: false,
      retryable: false,
      error: 'HTTP 302 (Found)',
    });
    // The redirect was not followed.
    expect(seen.filter((request) => request.headers['idempotency-key'] === 'k4')).toHaveLength(1);
  });

  it('retries a webhook that cannot be reached', async () => {
    const spare = createServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    const { port } = spare.address() as AddressInfo;
    await new Promise<void>((resolve) => spare.close(() => resolve()));
    const closed = toWebhook({ url: `http://127.0.0.1:${port}/hooks/secret-token` });
    const outcome = await postEvent(closed, '{}', 'k5', local);
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    expect(outcome.ok === false && outcome.error).toMatch(/ECONNREFUSED/);
    expect(outcome.ok === false && outcome.error).not.toContain('secret-token');
  });
});

describe('webhook destinations', () => {
  it('sorts addresses by network, IPv4 mapped into IPv6 as IPv4', () => {
    const cases = {
      '127.0.0.1': 'loopback',
      '0.0.0.0': 'loopback',
      '::1': 'loopback',
      '::ffff:127.0.0.1': 'loopback',
      '::ffff:7f00:1': 'loopback',
      '169.254.169.254': 'link-local',
      '::ffff:169.254.169.254': 'link-local',
      'fe80::1': 'link-local',
      '10.1.2.3': 'private',
      '172.31.0.1': 'private',
      '192.168.1.1': 'private',
      '100.100.100.200': 'private',
      'fd00:ec2::254': 'private',
      '224.0.0.1': 'unusable',
      '255.255.255.255': 'unusable',
      '8.8.8.8': 'public',
      '172.32.0.1': 'public',
      '2606:4700::1111': 'public',
    };
    for (const [address, network] of Object.entries(cases)) expect(networkOf(address), address).toBe(network);
  });

  it('refuses loopback, link-local and private targets by default, by address or by a name resolving to one, sending nothing', async () => {
    const before = seen.length;
    const port = new URL(base).port;
    for (const [url, why] of [
      [`${base}/ok/secret-token`, '127.0.0.1 is a loopback address'],
      [`http://[::1]:${port}/ok/secret-token`, '::1 is a loopback address'],
      [`http://localhost:${port}/ok/secret-token`, 'localhost resolves to'],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
      ['http://[fe80::1]/hook', 'fe80::1 is a link-local address'],
      ['http://10.0.0.8/hook', '10.0.0.8 is a private address'],
    ]) {
      const outcome = await postEvent(toWebhook({ url: url! }), '{}', 'k6', publicOnly);
      expect(outcome, url).toEqual({
        ok: false,
        retryable: false,
        error: expect.stringContaining(`destination refused: ${why}`),
      });
      expect(outcome.ok === false && outcome.error, url).toContain('unless ALERT_WEBHOOK_NETWORKS includes');
    }
    expect(seen.length).toBe(before);
    // Opened by the setting, the same loopback target is delivered to, by name too.
    expect(await postEvent(toWebhook({ url: `http://localhost:${port}/ok/secret-token` }), '{}', 'k7', local)).toEqual({
      ok: true,
      status: 200,
    });
  });
});

describe('delivery policy', () => {
  it('backs off exponentially from a second up to five minutes, or as the receiver asks', () => {
    expect([1, 2, 3, 4, 10, 30].map((attempts) => retryDelayMs(attempts))).toEqual([
      1_000,
      2_000,
      4_000,
      8_000,
      MAX_RETRY_DELAY_MS,
      MAX_RETRY_DELAY_MS,
    ]);
    expect(retryDelayMs(1, 7_000)).toBe(7_000);
    expect(retryDelayMs(1, 3600_000)).toBe(MAX_RETRY_DELAY_MS);
  });

  it('gives up a day after the event was recorded', () => {
    const created = new Date('2026-11-21T12:00:00Z');
    expect(givesUp(created, new Date(created.getTime() + GIVE_UP_AFTER_MS - 1))).toBe(false);
    expect(givesUp(created, new Date(created.getTime() + GIVE_UP_AFTER_MS))).toBe(true);
  });
});
