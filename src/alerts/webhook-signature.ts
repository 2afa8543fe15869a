import { createHmac } from 'node:crypto';

/**
 * Webhook signatures as the Standard Webhooks specification defines them: the headers
 * `webhook-id` (the event's idempotency key, the same on every attempt), `webhook-timestamp` (Unix
 * seconds of the attempt) and `webhook-signature` = `v1,` + base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<body>`, keyed with the secret's bytes (`whsec_` + base64). docs/alerts.md shows
 * how a receiver verifies them.
 */

const SECRET_PREFIX = 'whsec_';
/** The specification's bounds on a secret's key. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

/**
 * The key of a `whsec_...` secret, or why it is not one (a message naming what is wrong, never the
 * secret itself).
 */
export function readWebhookSecret(secret: string): { key: Buffer } | { problem: string } {
  if (!secret.startsWith(SECRET_PREFIX)) return { problem: `expected a secret starting with "${SECRET_PREFIX}"` };
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0)
    return { problem: `expected base64 after "${SECRET_PREFIX}"` };
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES)
    return { problem: `expected ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes of key, got ${key.length}` };
  return { key };
}

/** The three headers of one attempt to deliver `body` (the exact bytes sent). */
export function signatureHeaders(
  key: Buffer,
  id: string,
  body: string,
  now: number = Date.now(),
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const timestamp = String(Math.floor(now / 1000));
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
