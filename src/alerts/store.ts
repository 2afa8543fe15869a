import type postgres from 'postgres';
import type { alertEvents } from '../db/schema/alerts.ts';
import type { Webhook } from './rules.ts';
import type { AlertState, PlannedEvent } from './transitions.ts';

/** alert_states, what the evaluator remembers, and alert_events, the outbox the deliverers send from. */

/** A pool or a transaction: what the queries here run on. */
export type Queryable = postgres.ISql;

type AlertEventColumns = typeof alertEvents.$inferSelect;

export async function loadStates(sql: Queryable, ruleId: string): Promise<AlertState[]> {
  return sql<AlertState[]>`
    select subject, episode_key as "episodeKey", episode_open as "episodeOpen", episode_tick as "episodeTick",
           last_fired_at as "lastFiredAt", baseline
    from alert_states where rule_id = ${ruleId}`;
}

export async function saveStates(sql: Queryable, ruleId: string, states: AlertState[]): Promise<void> {
  for (const state of states) {
    await sql`
      insert into alert_states (rule_id, subject, episode_key, episode_open, episode_tick, last_fired_at, baseline, updated_at)
      values (${ruleId}, ${state.subject}, ${state.episodeKey}, ${state.episodeOpen}, ${state.episodeTick},
              ${state.lastFiredAt}, ${state.baseline}, now())
      on conflict (rule_id, subject) do update set
        episode_key = excluded.episode_key, episode_open = excluded.episode_open,
        episode_tick = excluded.episode_tick, last_fired_at = excluded.last_fired_at,
        baseline = excluded.baseline, updated_at = excluded.updated_at`;
  }
}

/** The JSON body POSTed to a webhook (docs/alerts.md); `text` alone is what Slack shows. */
function toPayload(event: PlannedEvent) {
  return {
    /** The idempotency key, also sent as the Idempotency-Key header. */
    id: event.key,
    rule: event.ruleId,
    kind: event.kind,
    status: event.status,
    subject: event.subject,
    tick: event.tick?.toISOString() ?? null,
    text: event.text,
    data: event.data,
  };
}

export type AlertPayload = ReturnType<typeof toPayload>;

/** Records each event once per webhook of its rule; returns those not recorded before (by anyone). */
export async function recordEvents(
  sql: Queryable,
  events: PlannedEvent[],
  webhooks: Webhook[],
): Promise<PlannedEvent[]> {
  const recorded: PlannedEvent[] = [];
  for (const event of events) {
    const payload = JSON.stringify(toPayload(event));
    let inserted = 0;
    for (const webhook of webhooks) {
      const rows = await sql`
        insert into alert_events (event_key, webhook, webhook_name, rule_id, kind, status, subject, tick, payload)
        values (${event.key}, ${webhook.id}, ${webhook.name}, ${event.ruleId}, ${event.kind}, ${event.status},
                ${event.subject}, ${event.tick}, ${payload}::jsonb)
        on conflict (event_key, webhook) do nothing
        returning 1`;
      inserted += rows.length;
    }
    if (inserted > 0) recorded.push(event);
  }
  return recorded;
}

/** Of these keys, those already in the outbox. */
export async function recordedKeys(sql: Queryable, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await sql<{ key: string }[]>`
    select distinct event_key as key from alert_events where event_key = any(${keys}::text[])`;
  return new Set(rows.map((row) => row.key));
}

/** An outbox row as the status page lists it, with its payload's text. */
export type AlertEventRow = Omit<
  AlertEventColumns,
  'webhook' | 'payload' | 'nextAttemptAt' | 'leaseOwner' | 'leaseUntil'
> & {
  text: string;
};

/** The newest outbox rows (one per event and webhook), newest first. */
export function loadRecentAlertEvents(sql: Queryable, limit: number): Promise<AlertEventRow[]> {
  return sql<AlertEventRow[]>`
    select event_key as "eventKey", rule_id as "ruleId", kind, status, subject, tick, payload ->> 'text' as text,
           webhook_name as "webhookName", state, attempts, left(last_error, 300) as "lastError",
           created_at as "createdAt", delivered_at as "deliveredAt"
    from alert_events
    order by created_at desc, event_key, webhook
    limit ${limit}`;
}

/** Deliveries not delivered yet, and those of them whose last attempt failed (chaintap_alert_events_failing). */
export async function countPendingDeliveries(sql: Queryable): Promise<{ pending: number; failing: number }> {
  const [row] = await sql<{ pending: number; failing: number }[]>`
    select count(*)::int as pending, (count(*) filter (where attempts > 0))::int as failing
    from alert_events where state = 'pending'`;
  return row ?? { pending: 0, failing: 0 };
}

export type AlertDeliveryCounts = Awaited<ReturnType<typeof loadAlertDeliveryCounts>>;

export async function loadAlertDeliveryCounts(sql: Queryable) {
  const { pending, failing } = await countPendingDeliveries(sql);
  const [lastDay] = await sql<{ delivered: number; failed: number }[]>`
    select (count(*) filter (where state = 'delivered'))::int as delivered,
           (count(*) filter (where state = 'failed'))::int as failed
    from alert_events where created_at > now() - interval '24 hours'`;
  return { pending, failing, deliveredLastDay: lastDay?.delivered ?? 0, failedLastDay: lastDay?.failed ?? 0 };
}
