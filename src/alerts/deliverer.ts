import type { Database } from '../db/client.ts';
import { withTransaction } from '../db/transaction.ts';
import { describe } from '../errors.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { givesUp, retryDelayMs } from './delivery-policy.ts';
import type { Webhook } from './rules.ts';
import {
  claimDueDelivery,
  countFailingDeliveries,
  markAttemptFailed,
  markDelivered,
  type ClaimedDelivery,
} from './store.ts';
import { postEvent } from './webhook.ts';

/** Deliveries in flight per process (each holds a pooled connection while it sends). */
const LANES = 2;
/** How often an idle lane looks for due deliveries (retries that came due, other processes' events). */
const POLL_MS = 1_000;
/** After a database error, before a lane tries again. */
const ERROR_PAUSE_MS = 5_000;
/** How often the failing gauge is recounted. */
const GAUGE_EVERY_MS = 5_000;

export interface Deliverer {
  /** Looks for due deliveries now (new events were just recorded). */
  wake(): void;
  /** Stops claiming; a send in flight finishes (within the webhook timeout) and is recorded. */
  close(): Promise<void>;
}

export interface DelivererDeps {
  database: Database;
  logger: Logger;
  metrics: Pick<Metrics, 'alertDeliveries' | 'alertsFailing'>;
  /** The webhooks of the rules file: only their deliveries are claimed (the URL is not stored). */
  webhooks: Webhook[];
}

/**
 * Sends the outbox. Each delivery is claimed, sent and its outcome recorded in one transaction that
 * holds the row's lock (FOR UPDATE SKIP LOCKED): while it is sent no other process or lane can take
 * it, and once its outcome is recorded none will send it again. A process killed between sending and
 * recording leaves the row pending; it is sent again with the same Idempotency-Key, which the
 * receiver uses to process it once (at-least-once sending + idempotency key = delivered once).
 */
export function startDeliverer({ database, logger, metrics, webhooks }: DelivererDeps): Deliverer {
  const byId = new Map(webhooks.map((webhook) => [webhook.id, webhook]));
  const webhookIds = [...byId.keys()];
  let closed = false;
  const sleepers = new Set<() => void>();
  let gaugeCountedAt = 0;

  /** Waits `ms`, or less when woken. */
  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });
  const wakeAll = () => {
    for (const wake of [...sleepers]) wake();
  };

  async function deliverOne(): Promise<boolean> {
    return withTransaction(database, 'alerts.deliver', async (tx) => {
      const delivery = await claimDueDelivery(tx.sql, webhookIds);
      if (!delivery) return false;
      const webhook = byId.get(delivery.webhook)!;
      const outcome = await postEvent(webhook, delivery.body, delivery.eventKey);
      const attempt = delivery.attempts + 1;
      const fields = { event: delivery.eventKey, webhook: webhook.name, attempt };
      if (outcome.ok) {
        await markDelivered(tx.sql, delivery);
        tx.afterCommit(() => {
          metrics.alertDeliveries.inc({ outcome: 'delivered' });
          logger.info({ ...fields, status: outcome.status }, 'alert delivered');
        });
        return true;
      }
      const now = new Date();
      const retryAt =
        outcome.retryable && !givesUp(delivery.createdAt, now)
          ? new Date(now.getTime() + retryDelayMs(attempt, outcome.retryAfterMs))
          : null;
      await markAttemptFailed(tx.sql, delivery, outcome.error, retryAt);
      tx.afterCommit(() => recordFailure(fields, delivery, outcome.error, retryAt));
      return true;
    });
  }

  function recordFailure(
    fields: { event: string; webhook: string; attempt: number },
    delivery: ClaimedDelivery,
    error: string,
    retryAt: Date | null,
  ) {
    if (retryAt) {
      metrics.alertDeliveries.inc({ outcome: 'retrying' });
      logger.warn({ ...fields, err: error, retryAt: retryAt.toISOString() }, 'alert delivery failed; retrying');
    } else {
      metrics.alertDeliveries.inc({ outcome: 'failed' });
      logger.error(
        { ...fields, err: error, since: delivery.createdAt.toISOString() },
        'alert delivery failed for good',
      );
    }
  }

  async function countFailing() {
    if (Date.now() - gaugeCountedAt < GAUGE_EVERY_MS) return;
    gaugeCountedAt = Date.now();
    metrics.alertsFailing.set(await countFailingDeliveries(database));
  }

  async function lane(): Promise<void> {
    while (!closed) {
      try {
        if (await deliverOne()) continue;
        await countFailing();
        await idle(POLL_MS);
      } catch (error) {
        logger.warn({ err: describe(error) }, 'alert delivery round failed; trying again');
        await idle(ERROR_PAUSE_MS);
      }
    }
  }

  const lanes = webhookIds.length > 0 ? Array.from({ length: LANES }, () => lane()) : [];
  return {
    wake: wakeAll,
    async close() {
      closed = true;
      wakeAll();
      await Promise.all(lanes);
    },
  };
}
