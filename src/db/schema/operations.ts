import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { bytea } from './bytea.ts';

/** `superseded`: replaced by the same target's job of a newer tick before it ran (docs/quota.md). */
export type RunStatus = 'running' | 'succeeded' | 'retrying' | 'failed' | 'quarantined' | 'superseded';

/** The job a response belongs to: columns of raw_responses and quarantined_payloads. */
const responseColumns = () => ({
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
  dataset: text('dataset').notNull(),
  endpoint: text('endpoint').notNull(),
  target: text('target').notNull(),
  tick: timestamp('tick', { withTimezone: true }).notNull(),
});

/** One row per job (dataset, target, tick): its latest outcome. */
export const ingestionRuns = pgTable(
  'ingestion_runs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    jobId: text('job_id').notNull(),
    dataset: text('dataset').notNull(),
    target: text('target').notNull(),
    tick: timestamp('tick', { withTimezone: true }).notNull(),
    status: text('status').$type<RunStatus>().notNull(),
    attempts: integer('attempts').notNull(),
    httpStatus: integer('http_status'),
    rowsWritten: integer('rows_written').notNull().default(0),
    /** Elements of the answer (price entries, positions, NFT groups) stored, and quarantined alone. */
    elementsStored: integer('elements_stored').notNull().default(0),
    elementsQuarantined: integer('elements_quarantined').notNull().default(0),
    error: text('error'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    unique('ingestion_runs_dataset_target_tick_key').on(t.dataset, t.target, t.tick),
    // The superseded jobs of the last hour, counted by the status page every 30 s.
    index('ingestion_runs_superseded_finished_at_idx')
      .on(t.finishedAt)
      .where(sql`${t.status} = 'superseded'`),
    check(
      'ingestion_runs_status_check',
      sql`${t.status} in ('running', 'succeeded', 'retrying', 'failed', 'quarantined', 'superseded')`,
    ),
  ],
);

/** Dictionaries of the zlib raw bodies of 0007, kept while workers before 0017 may write them. */
export const rawBodyDictionaries = pgTable(
  'raw_body_dictionaries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    dataset: text('dataset').notNull(),
    target: text('target').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    /** The dictionary's bytes (a body as received), zlib-compressed alone. */
    bodyZlib: bytea('body_zlib').notNull(),
  },
  (t) => [index('raw_body_dictionaries_dataset_target_created_at_idx').on(t.dataset, t.target, t.createdAt)],
);

/**
 * Every upstream response body as received (never the request, so never the key), once per job,
 * compressed by Postgres (TOAST). Pruned after RAW_RETENTION_DAYS.
 */
export const rawResponses = pgTable(
  'raw_responses',
  {
    ...responseColumns(),
    httpStatus: integer('http_status').notNull(),
    /** SHA-256 (hex) of the body's UTF-8 bytes. */
    sha256: text('sha256').notNull(),
    /** The body as received; null only when `body_bytes` holds it. */
    body: text('body'),
    /** A body with a NUL character, which a text column cannot hold: its UTF-8 bytes, as received. */
    bodyBytes: bytea('body_bytes'),
    /** Written by releases before 0017 only; `chaintap migrate` converts it. */
    bodyZlib: bytea('body_zlib'),
    dictionaryId: bigint('dictionary_id', { mode: 'number' }).references(() => rawBodyDictionaries.id),
  },
  (t) => [
    unique('raw_responses_job_body_key').on(t.dataset, t.target, t.tick, t.endpoint, t.sha256),
    index('raw_responses_received_at_idx').on(t.receivedAt),
    index('raw_responses_dictionary_id_idx').on(t.dictionaryId),
    check('raw_responses_body_check', sql`num_nonnulls(${t.body}, ${t.bodyBytes}, ${t.bodyZlib}) = 1`),
  ],
);

/** What could not be read, with the reason: a whole body (element_index null) or one element. */
export const quarantinedPayloads = pgTable(
  'quarantined_payloads',
  {
    ...responseColumns(),
    httpStatus: integer('http_status'),
    reason: text('reason').notNull(),
    body: text('body').notNull(),
    elementIndex: integer('element_index'),
    /** The same body in raw_responses; null once that is pruned (this row keeps its own copy). */
    rawResponseId: bigint('raw_response_id', { mode: 'number' }).references(() => rawResponses.id, {
      onDelete: 'set null',
    }),
  },
  (t) => [
    uniqueIndex('quarantined_payloads_raw_response_id_key')
      .on(t.rawResponseId)
      .where(sql`${t.elementIndex} is null`),
    uniqueIndex('quarantined_payloads_raw_response_id_element_index_key')
      .on(t.rawResponseId, t.elementIndex)
      .where(sql`${t.elementIndex} is not null`),
  ],
);

/** Fields the upstream sent in another shape than documented (src/normalize/schema-drift.ts). */
export const schemaDrifts = pgTable(
  'schema_drifts',
  {
    dataset: text('dataset').notNull(),
    field: text('field').notNull(),
    shape: text('shape').notNull(),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ name: 'schema_drifts_pkey', columns: [t.dataset, t.field, t.shape] })],
);

/** Newest successful tick per (dataset, target), kept by commitJob; read through dataset_freshness. */
export const datasetWatermarks = pgTable(
  'dataset_watermarks',
  {
    dataset: text('dataset').notNull(),
    target: text('target').notNull(),
    lastSuccessTick: timestamp('last_success_tick', { withTimezone: true }).notNull(),
    lastSuccessAt: timestamp('last_success_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ name: 'dataset_watermarks_pkey', columns: [t.dataset, t.target] })],
);

/**
 * What the refresh policy knows of each (dataset, address) target (src/refresh/): its last refresh,
 * the substance of its last complete answer, and the refreshes that did or did not see a change,
 * from which its change rate is estimated. Operational: rewritten by every refresh, not for BI.
 */
export const refreshTargets = pgTable(
  'refresh_targets',
  {
    dataset: text('dataset').notNull(),
    target: text('target').notNull(),
    /** Tick of the newest refresh recorded (an older one finishing later is not compared). */
    lastTick: timestamp('last_tick', { withTimezone: true }).notNull(),
    /** What counts as a change in the last complete answer (src/refresh/substance.ts); null: none yet. */
    substance: jsonb('substance').$type<unknown>(),
    /** The last comparisons, oldest first: [tick in epoch seconds, seconds since the previous, 1 changed / 0 not]. */
    observations: jsonb('observations').$type<[number, number, number][]>().notNull(),
    /** Every comparison, weighted by age: the estimator's sufficient statistics (src/refresh/change-rate.ts). */
    evidence: jsonb('evidence')
      .$type<{ at: number; quietHours: number; changed: ([number, number] | [number, number, number])[] }>()
      .notNull(),
    /** Positions: the USD price of each token the last answer carried, by `<chain>:<token>` (what a price move is measured from). */
    prices: jsonb('prices').$type<Record<string, number>>(),
    /** Estimated changes per hour (src/refresh/change-rate.ts). */
    changeRatePerHour: doublePrecision('change_rate_per_hour').notNull(),
    /** Tick of the newest refresh that saw a change. */
    changedAt: timestamp('changed_at', { withTimezone: true }),
    /** Refreshes compared with a previous one, and those that saw a change, since the target was first refreshed. */
    compared: integer('compared').notNull().default(0),
    changes: integer('changes').notNull().default(0),
  },
  (t) => [primaryKey({ name: 'refresh_targets_pkey', columns: [t.dataset, t.target] })],
);
