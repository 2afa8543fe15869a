import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../db/client.ts';
import { runQuery } from '../db/query.ts';
import { describe } from '../errors.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import type { Webhook } from './rules.ts';
import { claimDueDelivery, countPendingDeliveries, recordAttempt } from './store.ts';
import { givesUp, postEvent, retryDelayMs, WEBHOOK_TIMEOUT_MS } from './webhook.ts';

/** Deliveries in flight per process. */
const LANES = 2;
/** A claim's lease: the webhook's timeout and time to record the outcome (a dead lane's delay at most). */
const DELIVERY_LEASE_MS = 3 * WEBHOOK_TIMEOUT_MS;
/** How often an idle lane looks for due deliveries (retries that came due, other processes' events). */
const POLL_MS = 1_000;
/** After a database error, before a lane tries again. */
const ERROR_PAUSE_MS = 5_000;
/** How often the failing gauge is recounted. */
const GAUGE_EVERY_MS = 5_000;

export type Deliverer = ReturnType<typeof startDeliverer>;

export interface DelivererDeps {
  database: Database;
  logger: Logger;
  metrics: Pick<Metrics, 'alertDeliveries' | 'alertsFailing'>;
  /** The webhooks of the rules file: only their deliveries are claimed (the URL is not stored). */
  webhooks: Webhook[];
  /** How long a claim is a lane's (default DELIVERY_LEASE_MS; tests shorten it). */
  leaseMs?: number;
}

/**
 * Sends the outbox: each delivery is claimed with a lease, POSTed with no lock held, and its outcome
 * recorded by the lane still holding the lease. A process killed in between leaves the row pending:
 * sent again when the lease runs out, with the same Idempotency-Key, so the receiver processes it once.
 */
export function startDeliverer({ database, logger, metrics, webhooks, leaseMs }: DelivererDeps) {
  const byId = new Map(webhooks.map((webhook) => [webhook.id, webhook]));
  const webhookIds = [...byId.keys()];
  let closed = false;
  let gaugeCountedAt = 0;

  // Waking aborts every idle wait at once; the next waits take a fresh signal.
  let wakeUp = new AbortController();
  const idle = (ms: number) => sleep(ms, undefined, { signal: wakeUp.signal }).catch(() => undefined);
  const wakeAll = () => {
    wakeUp.abort();
    wakeUp = new AbortController();
  };

  /** Each lane's lease owner: the process and the lane, so that a lane records only its own claims. */
  const processId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

  async function deliverOne(leaseOwner: string): Promise<boolean> {
    const delivery = await runQuery(database, 'alerts.deliver', () =>
      claimDueDelivery(database.sql, webhookIds, leaseOwner, leaseMs ?? DELIVERY_LEASE_MS),
    );
    if (!delivery) return false;
    const webhook = byId.get(delivery.webhook)!;
    const outcome = await postEvent(webhook, delivery.body, delivery.eventKey);
    const attempt = delivery.attempts + 1;
    const fields = { event: delivery.eventKey, webhook: webhook.name, attempt };
    const now = new Date();
    const retryAt =
      !outcome.ok && outcome.retryable && !givesUp(delivery.createdAt, now)
        ? new Date(now.getTime() + retryDelayMs(attempt, outcome.retryAfterMs))
        : null;
    const failure = outcome.ok ? undefined : { error: outcome.error, retryAt };
    const recorded = await runQuery(database, 'alerts.deliver', () => recordAttempt(database.sql, delivery, failure));
    if (!recorded) {
      // The lease ran out before the outcome was recorded, and another lane took the row: it decides.
      logger.warn(fields, 'alert delivery outlived its lease; its outcome is left to the lane that took it over');
    } else if (outcome.ok) {
      metrics.alertDeliveries.inc({ outcome: 'delivered' });
      logger.info({ ...fields, status: outcome.status }, 'alert delivered');
    } else if (retryAt) {
      metrics.alertDeliveries.inc({ outcome: 'retrying' });
      logger.warn({ ...fields, err: outcome.error, retryAt: retryAt.toISOString() }, 'alert delivery failed; retrying');
    } else {
      metrics.alertDeliveries.inc({ outcome: 'failed' });
      const since = delivery.createdAt.toISOString();
      logger.error({ ...fields, err: outcome.error, since }, 'alert delivery failed for good');
    }
    return true;
  }

  async function countFailing() {
    if (Date.now() - gaugeCountedAt < GAUGE_EVERY_MS) return;
    gaugeCountedAt = Date.now();
    metrics.alertsFailing.set((await countPendingDeliveries(database.sql)).failing);
  }

  async function lane(leaseOwner: string): Promise<void> {
    while (!closed) {
      try {
        if (await deliverOne(leaseOwner)) continue;
        await countFailing();
        await idle(POLL_MS);
      } catch (error) {
        logger.warn({ err: describe(error) }, 'alert delivery round failed; trying again');
        await idle(ERROR_PAUSE_MS);
      }
    }
  }

  const lanes =
    webhookIds.length > 0 ? Array.from({ length: LANES }, (_, index) => lane(`${processId}/${index + 1}`)) : [];
  return {
    /** Looks for due deliveries now (new events were just recorded). */
    wake: wakeAll,
    /** Stops claiming; a send in flight finishes (within the webhook timeout) and is recorded. */
    async close(): Promise<void> {
      closed = true;
      wakeAll();
      await Promise.all(lanes);
    },
  };
}
