import type { Database } from '../db/client.ts';
import { runQuery } from '../db/query.ts';
import { withTransaction } from '../db/transaction.ts';
import { changeCondition, healthConditions, staleCondition, type Condition } from './conditions.ts';
import {
  observeChange,
  observeFreshness,
  observeHealth,
  observeLatestRefresh,
  observePositionChanges,
} from './observations.ts';
import { isEpisodeRule, type AlertRule, type EpisodeRule } from './rules.ts';
import { loadStates, recordedKeys, recordEvents, saveStates, type Queryable } from './store.ts';
import { planEpisodes, planPositionEvents, type AlertState, type Plan, type PlannedEvent } from './transitions.ts';

/**
 * Observe, plan (pure), record, in one transaction under an advisory lock: alerts processes take turns,
 * and a condition is one episode whoever sees it first. On the primary, so `stale` never reads a lagging copy.
 */

/** Arbitrary but fixed: serializes the evaluations of every alerts process on one database. */
const EVALUATION_LOCK_ID = 7_254_410_018;

/** What one rule observed and what it would do now. */
export interface RuleEvaluation {
  rule: AlertRule;
  /** Episode rules: what each subject's condition is. */
  conditions: Condition[];
  states: AlertState[];
  plan: Plan;
}

async function observeConditions(sql: Queryable, rule: EpisodeRule, now: Date): Promise<Condition[]> {
  switch (rule.kind) {
    case 'price_change':
    case 'portfolio_change':
    case 'nft_floor_change':
      return [changeCondition(rule, await observeChange(sql, rule))];
    case 'health_below':
      return healthConditions(rule, await observeHealth(sql, rule.address));
    case 'stale':
      return [staleCondition(rule, await observeFreshness(sql, rule.dataset), now)];
  }
}

async function evaluateRule(sql: Queryable, rule: AlertRule, now: Date): Promise<RuleEvaluation> {
  const states = await loadStates(sql, rule.id);
  if (isEpisodeRule(rule)) {
    const conditions = await observeConditions(sql, rule, now);
    return { rule, states, conditions, plan: planEpisodes(rule, conditions, states, now) };
  }
  const latestRefresh = await observeLatestRefresh(sql, rule.address);
  const state = states.find((candidate) => candidate.subject === rule.address);
  const rows = state?.baseline ? await observePositionChanges(sql, rule, state.baseline) : [];
  return { rule, states, conditions: [], plan: planPositionEvents(rule, rows, state, latestRefresh) };
}

/** Evaluates `rules` and records what they fire, in one transaction; returns the events new to the outbox. */
export function evaluateAndRecord(database: Database, rules: AlertRule[], now: Date): Promise<PlannedEvent[]> {
  return withTransaction(database, 'alerts.evaluate', async (tx) => {
    await tx.sql`select pg_advisory_xact_lock(${EVALUATION_LOCK_ID})`;
    const recorded: PlannedEvent[] = [];
    for (const rule of rules) {
      const { plan } = await evaluateRule(tx.sql, rule, now);
      recorded.push(...(await recordEvents(tx.sql, plan.events, rule.webhooks)));
      await saveStates(tx.sql, rule.id, plan.states);
    }
    return recorded;
  });
}

/** `chaintap alerts test`: each rule's evaluation as it would go now, with the events already sent left out. */
export function previewRules(database: Database, rules: AlertRule[], now: Date): Promise<RuleEvaluation[]> {
  return runQuery(database, 'alerts.read', async () => {
    const evaluations: RuleEvaluation[] = [];
    for (const rule of rules) evaluations.push(await evaluateRule(database.sql, rule, now));
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
