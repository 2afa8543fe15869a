import type { Database, Sql, TransactionSql } from '../db/client.ts';
import { runQuery } from '../db/query.ts';
import { primaryFlushPosition, waitForReplay } from '../db/read-replica.ts';
import { describe } from '../errors.ts';
import type { Logger } from '../runtime/logger.ts';
import { withTransaction } from '../db/transaction.ts';
import {
  floorCondition,
  healthConditions,
  portfolioCondition,
  priceCondition,
  staleCondition,
  type Condition,
} from './conditions.ts';
import {
  observeFloor,
  observeFreshness,
  observeHealth,
  observeLatestRefresh,
  observePortfolio,
  observePositionChanges,
  observePrice,
} from './observations.ts';
import { positionOccurrences, type Occurrence } from './position-events.ts';
import { isEpisodeRule, type AlertRule, type EpisodeRule } from './rules.ts';
import { loadStates, recordedKeys, recordEvents, saveStates, type Queryable } from './store.ts';
import { planEpisodes, planPositionEvents, type AlertState, type Plan, type PlannedEvent } from './transitions.ts';

/**
 * Evaluates rules against the data: observe, plan (pure), then record. Recording runs in one
 * transaction under an advisory lock, so that two alerts processes evaluate one after the other and
 * the second sees the episodes the first opened: a condition is one episode whoever sees it first.
 *
 * The observations may come from a read replica (DATABASE_READ_URL), but only once it has replayed
 * everything the primary had flushed when this evaluation took the lock: then it sees at least what
 * every earlier evaluation saw, and `stale` rules compare now with data as new as the primary's at
 * that moment. A replica that does not get there within `replicaWaitMs` (or does not answer) is
 * passed over for the primary, in the transaction. So replica lag delays an evaluation by at most
 * `replicaWaitMs`, and never makes a rule fire, resolve or fire again on old data
 * (docs/read-replicas.md).
 */

/** Arbitrary but fixed: serializes the evaluations of every alerts process on one database. */
const EVALUATION_LOCK_ID = 7_254_410_018;

/** How long an evaluation waits for the read replica to catch up before it observes the primary. */
export const REPLICA_WAIT_MS = 5_000;

/** Where the observations are read: the primary (default), or a read replica under the rule above. */
export interface ObservationSource {
  /** The read database; the primary's own handle (or none) means the primary. */
  readDatabase?: Database;
  /** Default REPLICA_WAIT_MS. */
  replicaWaitMs?: number;
  /** Where a replica passed over is logged. */
  logger?: Logger;
}

/** What one rule observed and what it would do now. */
export interface RuleEvaluation {
  rule: AlertRule;
  /** Episode rules: what each subject's condition is. */
  conditions: Condition[];
  states: AlertState[];
  plan: Plan;
}

async function evaluateEpisodeRule(observe: Queryable, rule: EpisodeRule, states: AlertState[], now: Date) {
  const conditions = await observeConditions(observe, rule, now);
  return { conditions, plan: planEpisodes(rule, conditions, states, now) };
}

async function observeConditions(sql: Queryable, rule: EpisodeRule, now: Date): Promise<Condition[]> {
  switch (rule.kind) {
    case 'price_change':
      return [priceCondition(rule, await observePrice(sql, rule.token, rule.windowMs))];
    case 'portfolio_change':
      return [portfolioCondition(rule, await observePortfolio(sql, rule.address, rule.windowMs))];
    case 'nft_floor_change':
      return [floorCondition(rule, await observeFloor(sql, rule.collection, rule.windowMs))];
    case 'health_below':
      return healthConditions(rule, await observeHealth(sql, rule.address));
    case 'stale':
      return [staleCondition(rule, await observeFreshness(sql, rule.dataset), now)];
  }
}

/** One rule: its states read on `sql` (the primary), its observations on `observe`. */
export async function evaluateRule(
  sql: Queryable,
  rule: AlertRule,
  now: Date,
  observe: Queryable = sql,
): Promise<RuleEvaluation> {
  const states = await loadStates(sql, rule.id);
  if (isEpisodeRule(rule)) return { rule, states, ...(await evaluateEpisodeRule(observe, rule, states, now)) };
  const latestRefresh = await observeLatestRefresh(observe, rule.address);
  const state = states.find((candidate) => candidate.subject === rule.address);
  let occurrences: Occurrence[] = [];
  if (state?.baseline) {
    const change = rule.kind === 'position_opened' ? 'opened' : 'closed';
    const rows = await observePositionChanges(observe, rule.address, change, state.baseline);
    occurrences = positionOccurrences(rule, rows, state.baseline);
  }
  return { rule, states, conditions: [], plan: planPositionEvents(rule, () => occurrences, state, latestRefresh) };
}

/**
 * Evaluates `rules` and records what they fire (events in the outbox, episodes and baselines in
 * alert_states), all in one transaction. Returns the events recorded now: an event another process
 * or an earlier run recorded already is not among them.
 */
export function evaluateAndRecord(
  database: Database,
  rules: AlertRule[],
  now: Date,
  source: ObservationSource = {},
): Promise<PlannedEvent[]> {
  return withTransaction(database, 'alerts.evaluate', async (tx) => {
    await tx.sql`select pg_advisory_xact_lock(${EVALUATION_LOCK_ID})`;
    const observe = await observationSql(database, tx.sql, source);
    const recorded: PlannedEvent[] = [];
    for (const rule of rules) {
      const { plan } = await evaluateRule(tx.sql, rule, now, observe);
      recorded.push(...(await recordEvents(tx.sql, plan.events, rule.webhooks)));
      await saveStates(tx.sql, rule.id, plan.states);
    }
    return recorded;
  });
}

/** `chaintap alerts test`: each rule's evaluation as it would go now, with the events already sent left out. */
export function previewRules(
  database: Database,
  rules: AlertRule[],
  now: Date,
  source: ObservationSource = {},
): Promise<RuleEvaluation[]> {
  return runQuery(database, 'alerts.read', async () => {
    const observe = await observationSql(database, database.sql, source);
    const evaluations: RuleEvaluation[] = [];
    for (const rule of rules) evaluations.push(await evaluateRule(database.sql, rule, now, observe));
    const sent = await recordedKeys(
      database.sql,
      evaluations.flatMap((evaluation) => evaluation.plan.events.map((event) => event.key)),
    );
    return evaluations.map((evaluation) => ({
      ...evaluation,
      plan: { ...evaluation.plan, events: evaluation.plan.events.filter((event) => !sent.has(event.key)) },
    }));
  });
}

/**
 * The read replica's connection once it has replayed the primary's flushed WAL as of now (the lock
 * is held, so as of this evaluation's start), else `primary`.
 */
async function observationSql(
  database: Database,
  primary: Sql | TransactionSql,
  source: ObservationSource,
): Promise<Queryable> {
  const { readDatabase } = source;
  if (!readDatabase || readDatabase === database) return primary;
  const waitMs = source.replicaWaitMs ?? REPLICA_WAIT_MS;
  const position = await primaryFlushPosition(primary);
  try {
    if (await waitForReplay(readDatabase, position, waitMs)) return readDatabase.sql;
    source.logger?.warn(
      { position, waitMs },
      'the read replica has not replayed the primary within the wait (or is not a standby): these rules observe the primary',
    );
  } catch (error) {
    source.logger?.warn({ err: describe(error) }, 'the read replica does not answer: these rules observe the primary');
  }
  return primary;
}
