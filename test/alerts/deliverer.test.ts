import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDeliverer, type Deliverer } from '../../src/alerts/deliverer.ts';
import { parseRules, type Webhook } from '../../src/alerts/rules.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * The deliverer in this process against a real Postgres and a local receiver: signed deliveries
 * checked with the verification code of docs/alerts.md, no lock held while a webhook hangs, and a
 * lease left by a dead sender sent again once it runs out, with the same key.
 */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let database: TestDatabase;
let server: Server;
let base: string;
const received: Received[] = [];
/** Requests the receiver holds without answering (a webhook that hangs). */
const held: ServerResponse[] = [];
let hang = false;
let deliverer: Deliverer | undefined;
const folder = mkdtempSync(join(tmpdir(), 'chaintap-deliverer-'));

/** The `verifyWebhook` of docs/alerts.md, as a receiver would copy it. */
async function documentedVerifier(): Promise<
  (secret: string, headers: IncomingHttpHeaders, rawBody: string, now?: number) => boolean
> {
  const doc = readFileSync(join(import.meta.dirname, '../../docs/alerts.md'), 'utf8');
  const snippet = /```js\n([\s\S]*?export function verifyWebhook[\s\S]*?)```/.exec(doc)?.[1];
  if (!snippet) throw new Error('docs/alerts.md has no verifyWebhook snippet');
  const file = join(folder, 'verify-webhook.mjs');
  writeFileSync(file, snippet);
  return ((await import(file)) as { verifyWebhook: never }).verifyWebhook;
}

beforeAll(async () => {
  database = await createTestDatabase();
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (hang) return held.push(res);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  hang = false;
  for (const res of held.splice(0)) res.writeHead(200).end('late');
  await deliverer?.close();
  deliverer = undefined;
  received.length = 0;
  await database.sql`delete from alert_events`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await database?.drop();
  rmSync(folder, { recursive: true, force: true });
});

/** The one webhook of a rules file, as `chaintap alerts` reads it. */
function webhookOf(yaml: string, env: Record<string, string> = {}): Webhook {
  const rules = parseRules(
    `${yaml}\nrules:\n  - { id: prices-stale, kind: stale, dataset: prices, max_age: 10m }\n`,
    'rules.yaml',
    env,
  );
  return rules.webhooks[0]!;
}

async function recordEvent(webhook: Webhook, key: string): Promise<string> {
  const payload = JSON.stringify({ id: key, rule: 'prices-stale', kind: 'stale', status: 'firing', text: 'é ✓' });
  await database.sql`
    insert into alert_events (event_key, webhook, webhook_name, rule_id, kind, status, subject, payload)
    values (${key}, ${webhook.id}, ${webhook.name}, 'prices-stale', 'stale', 'firing', 'prices', ${payload}::jsonb)`;
  const [row] = await database.sql<
    { body: string }[]
  >`select payload::text as body from alert_events where event_key = ${key}`;
  return row!.body;
}

function start(webhook: Webhook, leaseMs?: number): Deliverer {
  const logger = createLogger({ level: 'silent' });
  const metrics = createMetrics({ defaultMetrics: false });
  deliverer = startDeliverer({ database, logger, metrics, webhooks: [webhook], networks: ['loopback'], leaseMs });
  return deliverer;
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const stateOf = async (key: string) =>
  (
    await database.sql<{ state: string; attempts: number; leaseOwner: string | null }[]>`
      select state, attempts, lease_owner as "leaseOwner" from alert_events where event_key = ${key}`
  )[0]!;

describe('signed deliveries', () => {
  it('carry the Standard Webhooks headers, which the documented verifier accepts', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const webhook = webhookOf(`webhooks:\n  - { url: "${base}/signed", name: receiver, secret_env: HOOK_SECRET }`, {
      HOOK_SECRET: secret,
    });
    const body = await recordEvent(webhook, 'prices-stale:signed');
    start(webhook);
    await until('the delivery', () => received.length > 0);
    const [delivery] = received;
    expect(delivery!.body).toBe(body);
    expect(delivery!.headers).toMatchObject({
      'webhook-id': 'prices-stale:signed',
      'idempotency-key': 'prices-stale:signed',
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(Math.abs(Number(delivery!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);

    const verifyWebhook = await documentedVerifier();
    expect(verifyWebhook(secret, delivery!.headers, delivery!.body)).toBe(true);
    // Anything else is refused: another body, another secret, an old request, a missing header.
    expect(verifyWebhook(secret, delivery!.headers, delivery!.body.replace('firing', 'resolved'))).toBe(false);
    expect(verifyWebhook(`whsec_${randomBytes(32).toString('base64')}`, delivery!.headers, delivery!.body)).toBe(false);
    expect(verifyWebhook(secret, delivery!.headers, delivery!.body, Date.now() + 10 * 60_000)).toBe(false);
    expect(verifyWebhook(secret, { ...delivery!.headers, 'webhook-signature': undefined }, delivery!.body)).toBe(false);
    await until('the delivery recorded', async () => (await stateOf('prices-stale:signed')).state === 'delivered');
    expect(await stateOf('prices-stale:signed')).toEqual({ state: 'delivered', attempts: 1, leaseOwner: null });
  });

  it('are unsigned for a webhook without a secret (Slack)', async () => {
    const webhook = webhookOf(`webhooks:\n  - { url: "${base}/plain" }`);
    await recordEvent(webhook, 'prices-stale:plain');
    start(webhook);
    await until('the delivery', () => received.length > 0);
    expect(received[0]!.headers['webhook-signature']).toBeUndefined();
    expect(received[0]!.headers['idempotency-key']).toBe('prices-stale:plain');
  });
});

describe('the lease', () => {
  it('holds no database lock or transaction while a webhook hangs', async () => {
    hang = true;
    const webhook = webhookOf(`webhooks:\n  - { url: "${base}/hangs", name: slow }`);
    await recordEvent(webhook, 'prices-stale:hangs');
    start(webhook);
    await until('the POST', () => held.length > 0);
    // The webhook has the request and does not answer: the sender waits (up to 10 s).
    const locks = await database.sql<{ mode: string; pid: number }[]>`
      select l.mode, l.pid from pg_locks l
      join pg_class c on c.oid = l.relation
      where c.relname = 'alert_events' and l.pid <> pg_backend_pid()`;
    expect(locks).toEqual([]);
    const inTransaction = await database.sql<{ state: string }[]>`
      select state from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%'`;
    expect(inTransaction).toEqual([]);
    // The row is the sender's by its lease, and another session can lock it at once.
    expect((await stateOf('prices-stale:hangs')).leaseOwner).toMatch(/:\d+:[0-9a-f]{6}\/[12]$/);
    await database.sql.begin(async (sql) => {
      const rows = await sql`select 1 from alert_events where event_key = 'prices-stale:hangs' for update nowait`;
      expect(rows).toHaveLength(1);
    });
    // Nobody else claims it meanwhile.
    expect(received).toHaveLength(1);
  });

  it('left by a sender that died after its POST runs out, and the event is sent again with the same key', async () => {
    const webhook = webhookOf(`webhooks:\n  - { url: "${base}/after-crash", name: receiver }`);
    await recordEvent(webhook, 'prices-stale:crash');
    // As a process killed between its POST and recording it leaves the row: claimed, attempts 0.
    await database.sql`
      update alert_events set lease_owner = 'dead-host:4242:abcdef/1', lease_until = now() + interval '2 seconds'
      where event_key = 'prices-stale:crash'`;
    const started = Date.now();
    start(webhook, 1_000);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(received).toHaveLength(0);
    await until('the delivery after the lease', () => received.length > 0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(received[0]!.headers['idempotency-key']).toBe('prices-stale:crash');
    await until('the delivery recorded', async () => (await stateOf('prices-stale:crash')).state === 'delivered');
    expect(await stateOf('prices-stale:crash')).toEqual({ state: 'delivered', attempts: 1, leaseOwner: null });
    expect(received).toHaveLength(1);
  });
});
