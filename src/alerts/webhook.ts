import { createHmac } from 'node:crypto';
import { describe } from '../errors.ts';
import { readRetryAfterMs } from '../runtime/retry-after.ts';
import type { Webhook } from './rules.ts';

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

/**
 * POSTs one event's JSON with its Idempotency-Key, signed when the webhook has a secret; any 2xx is
 * a delivery. The outcome never holds the URL: a Slack webhook's URL is its secret.
 */
export async function postEvent(
  webhook: Webhook,
  body: string,
  idempotencyKey: string,
  now: number = Date.now(),
): Promise<SendOutcome> {
  let response: Response;
  try {
    response = await fetch(webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
        'user-agent': 'chaintap-alerts',
        ...(webhook.signingKey ? signatureHeaders(webhook.signingKey, idempotencyKey, body, now) : {}),
      },
      body,
      // A redirected POST would arrive as a GET elsewhere: report it instead.
      redirect: 'manual',
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return {
      ok: false,
      retryable: true,
      error: scrub(timedOut ? `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s` : describe(error), webhook),
    };
  }
  const text = await response.text().catch(() => '');
  const { status } = response;
  if (status >= 200 && status < 300) return { ok: true, status };
  const retryAfterMs = readRetryAfterMs(response.headers.get('retry-after'));
  return {
    ok: false,
    // Timeouts, conflicts of an in-flight idempotent request, rate limits, server errors.
    retryable: [408, 409, 425, 429].includes(status) || status >= 500,
    error: scrub(`HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`, webhook),
    ...(retryAfterMs !== undefined && retryAfterMs > 0 ? { retryAfterMs } : {}),
  };
}

/** The URL (and its path, which holds Slack's secret) replaced by the webhook's name. */
function scrub(text: string, webhook: Webhook): string {
  const { pathname } = new URL(webhook.url);
  let scrubbed = text.split(webhook.url).join(`<${webhook.name}>`);
  if (pathname.length > 1) scrubbed = scrubbed.split(pathname).join('/…');
  return scrubbed;
}
