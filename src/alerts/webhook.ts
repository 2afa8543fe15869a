import { createHmac } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { request } from 'undici';
import { describe } from '../errors.ts';
import { readRetryAfterMs } from '../runtime/retry-after.ts';
import type { Webhook } from './rules.ts';
import { literalAddressProblem, WebhookDestinationError, type WebhookRoute } from './webhook-destination.ts';

export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * A webhook that is down is retried with exponential backoff for a day; an answer that retrying
 * cannot change (a 4xx other than 408, 409, 425 and 429, or a redirect) fails the delivery at once.
 */
const FIRST_RETRY_MS = 1_000;
export const MAX_RETRY_DELAY_MS = 5 * 60_000;
export const GIVE_UP_AFTER_MS = 24 * 3600_000;

/** Wait before attempt `attempts + 1`, after `attempts` failed ones; a Retry-After the receiver gave wins (capped). */
export function retryDelayMs(attempts: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, FIRST_RETRY_MS), MAX_RETRY_DELAY_MS);
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
}

/** Whether a delivery recorded at `createdAt` has been retried long enough. */
export function givesUp(createdAt: Date, now: Date): boolean {
  return now.getTime() - createdAt.getTime() >= GIVE_UP_AFTER_MS;
}

/**
 * Standard Webhooks signatures: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`
 * keyed with the secret's bytes (`whsec_` + base64). docs/alerts.md shows how a receiver verifies them.
 */
const SECRET_PREFIX = 'whsec_';

/** The key of a `whsec_...` secret, or why it is not one (never quoting the secret). */
export function readWebhookSecret(secret: string): { key: Buffer } | { problem: string } {
  if (!secret.startsWith(SECRET_PREFIX)) return { problem: `expected a secret starting with "${SECRET_PREFIX}"` };
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0)
    return { problem: `expected base64 after "${SECRET_PREFIX}"` };
  const key = Buffer.from(encoded, 'base64');
  // The specification's bounds.
  if (key.length < 24 || key.length > 64) return { problem: `expected 24 to 64 bytes of key, got ${key.length}` };
  return { key };
}

function signatureHeaders(key: Buffer, id: string, body: string, now: number) {
  const timestamp = String(Math.floor(now / 1000));
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

export type SendOutcome =
  { ok: true; status: number } | { ok: false; retryable: boolean; error: string; retryAfterMs?: number };

/** The status line of an answer, in words of our own: what the target wrote is neither stored nor logged. */
function statusSummary(status: number): string {
  const phrase = STATUS_CODES[status];
  return `HTTP ${status}${phrase ? ` (${phrase})` : ''}`;
}

/**
 * POSTs one event's JSON with its Idempotency-Key, signed when the webhook has a secret, through
 * `route` (its destinations checked: webhook-destination.ts); any 2xx is a delivery. The outcome
 * never holds the URL (a Slack webhook's URL is its secret) nor the body the target answered.
 */
export async function postEvent(
  webhook: Webhook,
  body: string,
  idempotencyKey: string,
  route: WebhookRoute,
  now: number = Date.now(),
): Promise<SendOutcome> {
  const refused = literalAddressProblem(webhook.url, route.allowed);
  if (refused) return { ok: false, retryable: false, error: `destination refused: ${refused}` };
  let status: number;
  let retryAfter: string | string[] | undefined;
  try {
    // undici's request follows no redirect: a redirected POST would arrive as a GET elsewhere.
    const response = await request(webhook.url, {
      method: 'POST',
      dispatcher: route.dispatcher,
      headers: {
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
        'user-agent': 'chaintap-alerts',
        ...(webhook.signingKey ? signatureHeaders(webhook.signingKey, idempotencyKey, body, now) : {}),
      },
      body,
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    ({ statusCode: status } = response);
    retryAfter = response.headers['retry-after'];
    await response.body.dump().catch(() => undefined);
  } catch (error) {
    const destination = causeOf(error, WebhookDestinationError);
    if (destination) return { ok: false, retryable: false, error: `destination refused: ${destination.message}` };
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return {
      ok: false,
      retryable: true,
      error: scrub(timedOut ? `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s` : describe(error), webhook),
    };
  }
  if (status >= 200 && status < 300) return { ok: true, status };
  const retryAfterMs = readRetryAfterMs(retryAfter);
  return {
    ok: false,
    // Timeouts, conflicts of an in-flight idempotent request, rate limits, server errors.
    retryable: [408, 409, 425, 429].includes(status) || status >= 500,
    error: statusSummary(status),
    ...(retryAfterMs !== undefined && retryAfterMs > 0 ? { retryAfterMs } : {}),
  };
}

/** The first error of `type` along the cause chain (undici wraps what the socket's lookup failed with). */
function causeOf<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let e = error; e instanceof Error; e = (e as { cause?: unknown }).cause) if (e instanceof type) return e;
  return undefined;
}

/** The URL (and its path, which holds Slack's secret) replaced by the webhook's name. */
function scrub(text: string, webhook: Webhook): string {
  const { pathname } = new URL(webhook.url);
  let scrubbed = text.split(webhook.url).join(`<${webhook.name}>`);
  if (pathname.length > 1) scrubbed = scrubbed.split(pathname).join('/…');
  return scrubbed;
}
