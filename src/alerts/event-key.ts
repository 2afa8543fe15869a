import { createHash } from 'node:crypto';

/**
 * The idempotency key of an event: the payload's `id` and the Idempotency-Key header. It derives
 * from the rule, the subject and what triggered the event (a tick, or the episode it starts), never
 * from a clock or a process, so every process and every re-run of a tick computes the same key and
 * the outbox records the event once. The rule id stays readable; the rest is hashed to a fixed length.
 */
export function eventKey(ruleId: string, subject: string, trigger: string): string {
  const digest = createHash('sha256').update(`${ruleId}\u0000${subject}\u0000${trigger}`).digest('hex');
  return `${ruleId}:${digest.slice(0, 32)}`;
}

/** The key of the event that ends the episode started by `startKey`. */
export function resolvedKey(startKey: string): string {
  return `${startKey}:resolved`;
}
