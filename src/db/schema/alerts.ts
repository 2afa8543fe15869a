import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** Sent and acknowledged, still to send (retried with backoff), or given up. */
export type AlertDeliveryState = 'pending' | 'delivered' | 'failed';
/** `firing`: a condition started or a position event happened; `resolved`: an episode ended. */
export type AlertEventStatus = 'firing' | 'resolved';

/**
 * The alerts outbox (docs/alerts.md): one row per event and webhook, written before sending, keyed
 * so that an event is recorded once. `webhook` is the first 16 hex digits of the URL's SHA-256: a
 * Slack URL is a secret and chaintap_reader reads every table.
 */
export const alertEvents = pgTable(
  'alert_events',
  {
    /** The idempotency key: the payload's `id` and the Idempotency-Key header. */
    eventKey: text('event_key').notNull(),
    webhook: text('webhook').notNull(),
    /** The webhook's `name` in the rules file, else its URL's host. */
    webhookName: text('webhook_name').notNull(),
    ruleId: text('rule_id').notNull(),
    kind: text('kind').notNull(),
    status: text('status').$type<AlertEventStatus>().notNull(),
    subject: text('subject').notNull(),
    /** The data time the event is about (a price time, a snapshot tick); null: a dataset never refreshed. */
    tick: timestamp('tick', { withTimezone: true }),
    /** The JSON body POSTed, as recorded: every attempt sends the same event. */
    payload: jsonb('payload').notNull(),
    state: text('state').$type<AlertDeliveryState>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    /** The deliverer lane sending the row, and until when; a dead sender's row is sent again after it. */
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.eventKey, t.webhook] }),
    // What the deliverers claim, every second or so: the pending rows that are due.
    index('alert_events_pending_next_attempt_at_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.state} = 'pending'`),
    // The status page's recent events.
    index('alert_events_created_at_idx').on(t.createdAt),
    check('alert_events_state_check', sql`${t.state} in ('pending', 'delivered', 'failed')`),
    check('alert_events_status_check', sql`${t.status} in ('firing', 'resolved')`),
  ],
);

/** What the evaluator remembers per rule and subject: a condition that stays true is one episode. */
export const alertStates = pgTable(
  'alert_states',
  {
    ruleId: text('rule_id').notNull(),
    subject: text('subject').notNull(),
    /** The start event (idempotency key) of the last episode, open or ended: the next one's key derives from it. */
    episodeKey: text('episode_key'),
    episodeOpen: boolean('episode_open').notNull().default(false),
    /** The data time the last episode started at. */
    episodeTick: timestamp('episode_tick', { withTimezone: true }),
    /** Wall time of the last firing event of this subject (the rule's cooldown counts from it). */
    lastFiredAt: timestamp('last_fired_at', { withTimezone: true }),
    /** Position rules: positions opened or closed after this tick are alerted. */
    baseline: timestamp('baseline', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.subject] })],
);
