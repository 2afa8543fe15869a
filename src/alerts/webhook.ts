import { describe } from '../errors.ts';
import { readRetryAfterMs } from '../runtime/retry-after.ts';
import { isRetryableStatus } from './delivery-policy.ts';
import type { Webhook } from './rules.ts';
import { signatureHeaders } from './webhook-signature.ts';

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How much of an error answer's body is kept in last_error. */
const ERROR_BODY_CHARS = 200;

export type SendOutcome =
  { ok: true; status: number } | { ok: false; retryable: boolean; error: string; retryAfterMs?: number };

/**
 * POSTs one event's JSON to a webhook with its Idempotency-Key, signed as Standard Webhooks do when
 * the webhook has a secret (webhook-signature.ts; `webhook-id` is the same key). Any 2xx is a
 * delivery. What the outcome says never holds the URL: a Slack webhook's URL is its secret.
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
  if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
  const retryAfterMs = readRetryAfterMs(response.headers.get('retry-after'));
  return {
    ok: false,
    retryable: isRetryableStatus(response.status),
    error: scrub(`HTTP ${response.status}${text ? `: ${text.slice(0, ERROR_BODY_CHARS)}` : ''}`, webhook),
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
