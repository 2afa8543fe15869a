import { createHash } from 'node:crypto';
import type { AlertEventStatus, alertStates } from '../db/schema/alerts.ts';
import type { positions } from '../db/schema/positions.ts';
import { goneText, positionSubject, type Condition } from './conditions.ts';
import { formatTime, shortAddress, shortPositionId } from './format.ts';
import type { EpisodeRule, PositionEventRule, RuleKind } from './rules.ts';

/** From what a rule observes and remembers (alert_states) to the events to record and the next state. Pure. */

/** One alert_states row (its columns say what each field remembers). */
export type AlertState = Pick<
  typeof alertStates.$inferSelect,
  'subject' | 'episodeKey' | 'episodeOpen' | 'episodeTick' | 'lastFiredAt' | 'baseline'
>;

/** An event to record in the outbox (once per webhook of its rule): its key and its condition's figures. */
export type PlannedEvent = Omit<Condition, 'holds'> & {
  key: string;
  ruleId: string;
  kind: RuleKind;
  status: AlertEventStatus;
};

/** The events to record, and the alert_states rows to write (whole rows: inserted or replaced). */
export type Plan = { events: PlannedEvent[]; states: AlertState[] };

/** A position of the rule's address as the `positions` table holds it. */
export type PositionRow = Pick<
  typeof positions.$inferSelect,
  'owner' | 'positionId' | 'parentPositionId' | 'type' | 'chain' | 'protocolId' | 'firstSeenAt' | 'closedAt'
>;

/**
 * An event's idempotency key (payload `id`, Idempotency-Key header): from the rule, the subject and
 * the trigger (a tick, the episode it starts), never a clock or a process, so every process and re-run
 * computes the same key and the outbox records the event once.
 */
export function eventKey(ruleId: string, subject: string, trigger: string): string {
  const digest = createHash('sha256').update(`${ruleId}\u0000${subject}\u0000${trigger}`).digest('hex');
  return `${ruleId}:${digest.slice(0, 32)}`;
}

const EMPTY_STATE = { episodeKey: null, episodeOpen: false, episodeTick: null, lastFiredAt: null, baseline: null };

/**
 * A condition that starts to hold opens an episode and fires once; it ends (with a `resolved` event
 * when the rule sends them) when the condition stops holding or its subject is no longer observed.
 * No episode starts within the cooldown after the subject's last alert; holds undefined changes nothing.
 */
export function planEpisodes(rule: EpisodeRule, conditions: Condition[], states: AlertState[], now: Date): Plan {
  const bySubject = new Map(states.map((state) => [state.subject, state]));
  const plan: Plan = { events: [], states: [] };
  type Observed = Pick<Condition, 'subject' | 'tick' | 'data'>;
  const event = (status: AlertEventStatus, key: string, { subject, tick, data }: Observed, text: string) =>
    plan.events.push({ key, ruleId: rule.id, kind: rule.kind, status, subject, tick, data, text });
  const end = (state: AlertState, source: Observed, text: string) => {
    if (rule.sendResolved && state.episodeKey) {
      event('resolved', `${state.episodeKey}:resolved`, source, `[${rule.id}] Resolved: ${text}`);
    }
    plan.states.push({ ...state, episodeOpen: false });
  };

  const observed = new Set<string>();
  for (const condition of conditions) {
    observed.add(condition.subject);
    const state = bySubject.get(condition.subject);
    if (condition.holds === true && !state?.episodeOpen) {
      const sinceLast = state?.lastFiredAt ? now.getTime() - state.lastFiredAt.getTime() : Infinity;
      if (sinceLast < rule.cooldownMs) continue;
      const trigger = `start:${condition.tick?.toISOString() ?? 'never'}:after:${state?.episodeKey ?? ''}`;
      const key = eventKey(rule.id, condition.subject, trigger);
      event('firing', key, condition, `[${rule.id}] ${condition.text}`);
      plan.states.push({
        ...EMPTY_STATE,
        ...state,
        subject: condition.subject,
        episodeKey: key,
        episodeOpen: true,
        episodeTick: condition.tick,
        lastFiredAt: now,
      });
    } else if (condition.holds === false && state?.episodeOpen) {
      end(state, condition, condition.text);
    }
  }
  for (const state of states) {
    if (state.episodeOpen && !observed.has(state.subject)) {
      end(state, { subject: state.subject, tick: null, data: {} }, goneText(rule, state.subject));
    }
  }
  return plan;
}

/**
 * A position rule's first evaluation after a positions refresh sets the baseline to it (what exists
 * then is not news); later ones fire one event per position opened or closed after it, keyed by
 * position and tick (the same data again records nothing; a reopened position's closing is new).
 */
export function planPositionEvents(
  rule: PositionEventRule,
  rows: PositionRow[],
  state: AlertState | undefined,
  latestRefresh: Date | null,
): Plan {
  const baseline = state?.baseline;
  if (!baseline) {
    if (!latestRefresh) return { events: [], states: [] };
    return { events: [], states: [{ ...EMPTY_STATE, ...state, subject: rule.address, baseline: latestRefresh }] };
  }
  const change = rule.kind === 'position_opened' ? 'opened' : 'closed';
  const events = rows.flatMap((row): PlannedEvent[] => {
    const tick = change === 'opened' ? row.firstSeenAt : row.closedAt;
    if (!tick || tick.getTime() <= baseline.getTime()) return [];
    const subject = positionSubject(row.owner, row.positionId);
    const where = [row.type, row.protocolId, row.chain].filter(Boolean).join(', ');
    const nested = row.parentPositionId ? `, inside ${shortPositionId(row.parentPositionId)}` : '';
    return [
      {
        key: eventKey(rule.id, subject, `${change}:${tick.toISOString()}`),
        ruleId: rule.id,
        kind: rule.kind,
        status: 'firing',
        subject,
        tick,
        text: `[${rule.id}] Position ${shortPositionId(row.positionId)} (${where}${nested}) of ${shortAddress(row.owner)} ${change} at ${formatTime(tick)}`,
        data: {
          address: row.owner,
          position_id: row.positionId,
          parent_position_id: row.parentPositionId,
          type: row.type,
          chain: row.chain,
          protocol_id: row.protocolId,
          first_seen_at: row.firstSeenAt.toISOString(),
          closed_at: row.closedAt?.toISOString() ?? null,
        },
      },
    ];
  });
  return { events, states: [] };
}
