import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../db/client.ts';
import type { alertEvents } from '../db/schema/alerts.ts';
import { runQuery } from '../db/query.ts';
import { describe } from '../errors.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import type { Webhook } from './rules.ts';
import { countPendingDeliveries } from './store.ts';
import { givesUp, postEvent, retryDelayMs, WEBHOOK_TIMEOUT_MS } from './webhook.ts';
import { createWebhookRoute } from './webhook-destination.ts';
import type { WebhookNetwork } from '../config/options.ts';

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

/** A delivery claimed for sending, with its JSON body as recorded. */
type ClaimedDelivery = Pick<typeof alertEvents.$inferSelect, 'eventKey' | 'webhook' | 'attempts' | 'createdAt'> & {
  body: string;
};

export interface DelivererDeps {
  database: Database;
  logger: Logger;
  metrics: Pick<Metrics, 'alertDeliveries' | 'alertsFailing'>;
  /** The webhooks of the rules file: only their deliveries are claimed (the URL is not stored). */
  webhooks: Webhook[];
  /** Networks beyond the public internet the webhooks may reach (ALERT_WEBHOOK_NETWORKS). */
  networks: readonly WebhookNetwork[];
  /** How long a claim is a lane's (default DELIVERY_LEASE_MS; tests shorten it). */
  leaseMs?: number;
}

/**
 * Sends the outbox: each delivery is claimed with a lease, POSTed with no lock held, and its outcome
 * recorded by the lane still holding the lease. A process killed in between leaves the row pending:
 * sent again when the lease runs out, with the same Idempotency-Key, so the receiver processes it once.
 */
export function startDeliverer({
  database,
  logger,
  metrics,
  webhooks,
  networks,
  leaseMs = DELIVERY_LEASE_MS,
}: DelivererDeps) {
  const route = createWebhookRoute(networks);
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

  /**
   * Claims the next due delivery by setting its lease in one statement (SKIP LOCKED keeps two claims
   * apart; no lock is held while it is sent). A row whose lease ran out is due again.
   */
  async function claim(leaseOwner: string) {
    const [row] = await database.sql<ClaimedDelivery[]>`
      update alert_events e
      set lease_owner = ${leaseOwner}, lease_until = now() + ${leaseMs} * interval '1 millisecond'
      from (
        select event_key, webhook from alert_events
        where state = 'pending' and next_attempt_at <= now() and webhook = any(${webhookIds}::text[])
          and (lease_until is null or lease_until <= now())
        order by next_attempt_at, created_at
        limit 1
        for update skip locked
      ) due
      where e.event_key = due.event_key and e.webhook = due.webhook
      returning e.event_key as "eventKey", e.webhook, e.payload::text as body, e.attempts, e.created_at as "createdAt"`;
    return row;
  }

  /**
   * Records an attempt while `leaseOwner` still holds the lease (false: it ran out and was taken): a
   * delivery, or with `failure` one retried at `retryAt`, or given up (state failed) when that is null.
   */
  async function record(
    delivery: ClaimedDelivery,
    leaseOwner: string,
    failure?: { error: string; retryAt: Date | null },
  ) {
    const { sql } = database;
    const outcome = failure
      ? sql`state = ${failure.retryAt ? 'pending' : 'failed'}, last_error = ${failure.error},
            next_attempt_at = coalesce(${failure.retryAt}, next_attempt_at)`
      : sql`state = 'delivered', last_error = null, delivered_at = now()`;
    const rows = await sql`
      update alert_events
      set ${outcome}, attempts = attempts + 1, lease_owner = null, lease_until = null
      where event_key = ${delivery.eventKey} and webhook = ${delivery.webhook} and lease_owner = ${leaseOwner}
      returning 1`;
    return rows.length > 0;
  }

  async function deliverOne(leaseOwner: string): Promise<boolean> {
    const delivery = await runQuery(database, 'alerts.deliver', () => claim(leaseOwner));
    if (!delivery) return false;
    const webhook = byId.get(delivery.webhook)!;
    const outcome = await postEvent(webhook, delivery.body, delivery.eventKey, route);
    const attempt = delivery.attempts + 1;
    const fields = { event: delivery.eventKey, webhook: webhook.name, attempt };
    const now = new Date();
    const retryAt =
      !outcome.ok && outcome.retryable && !givesUp(delivery.createdAt, now)
        ? new Date(now.getTime() + retryDelayMs(attempt, outcome.retryAfterMs))
        : null;
    const failure = outcome.ok ? undefined : { error: outcome.error, retryAt };
    const recorded = await runQuery(database, 'alerts.deliver', () => record(delivery, leaseOwner, failure));
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
      await route.close();
    },
  };
}
