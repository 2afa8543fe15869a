import type { AlertEventStatus } from '../db/schema/alerts.ts';
import { goneText, type AlertData, type Condition } from './conditions.ts';
import { eventKey, resolvedKey } from './event-key.ts';
import type { Occurrence } from './position-events.ts';
import type { EpisodeRule, PositionEventRule, RuleKind } from './rules.ts';

/**
 * From what a rule observes and what it remembers (alert_states) to the events to record and the
 * state to remember next. Pure: the evaluator reads and writes both in one transaction.
 */

/** One alert_states row: what the evaluator remembers of a rule's subject. */
export interface AlertState {
  subject: string;
  /** The last episode's start event; the next episode's key derives from it, so each is new. */
  episodeKey: string | null;
  episodeOpen: boolean;
  episodeTick: Date | null;
  /** Wall time of the last firing event (cooldown). */
  lastFiredAt: Date | null;
  /** Position rules: changes after this tick are alerted. */
  baseline: Date | null;
}

/** An event to record in the outbox (once per webhook of its rule). */
export interface PlannedEvent {
  key: string;
  ruleId: string;
  kind: RuleKind;
  status: AlertEventStatus;
  subject: string;
  tick: Date | null;
  text: string;
  data: AlertData;
}

export interface Plan {
  events: PlannedEvent[];
  /** alert_states rows to write (whole rows: inserted or replaced). */
  states: AlertState[];
}

const EMPTY_STATE = { episodeKey: null, episodeOpen: false, episodeTick: null, lastFiredAt: null, baseline: null };

/**
 * A condition that starts to hold opens an episode and fires once; while it holds nothing more is
 * sent; when it stops holding (or its subject is no longer observed) the episode ends, with a
 * `resolved` event when the rule sends them. Within the rule's cooldown after the subject's last
 * alert no episode starts: one that still holds after it fires then. A condition the data cannot
 * tell (holds undefined) changes nothing.
 */
export function planEpisodes(rule: EpisodeRule, conditions: Condition[], states: AlertState[], now: Date): Plan {
  const bySubject = new Map(states.map((state) => [state.subject, state]));
  const plan: Plan = { events: [], states: [] };
  const event = (
    status: AlertEventStatus,
    key: string,
    subject: string,
    rest: Pick<Condition, 'tick' | 'data'>,
    text: string,
  ) =>
    plan.events.push({
      key,
      ruleId: rule.id,
      kind: rule.kind,
      status,
      subject,
      tick: rest.tick,
      data: rest.data,
      text,
    });
  const end = (state: AlertState, text: string, rest: Pick<Condition, 'tick' | 'data'>) => {
    if (rule.sendResolved && state.episodeKey) {
      event('resolved', resolvedKey(state.episodeKey), state.subject, rest, `[${rule.id}] Resolved: ${text}`);
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
      event('firing', key, condition.subject, condition, `[${rule.id}] ${condition.text}`);
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
      end(state, condition.text, condition);
    }
  }
  for (const state of states) {
    if (state.episodeOpen && !observed.has(state.subject)) {
      end(state, goneText(rule, state.subject), { tick: null, data: {} });
    }
  }
  return plan;
}

/**
 * A position rule's first evaluation with a positions refresh of its address sets the baseline to
 * that refresh (what exists then is not news) and fires nothing; later ones fire one event per
 * position opened or closed after it. Events are keyed by position and tick, so evaluating the same
 * data again records nothing new.
 */
export function planPositionEvents(
  rule: PositionEventRule,
  occurrences: (baseline: Date) => Occurrence[],
  state: AlertState | undefined,
  latestRefresh: Date | null,
): Plan {
  if (!state?.baseline) {
    if (!latestRefresh) return { events: [], states: [] };
    return { events: [], states: [{ ...EMPTY_STATE, ...state, subject: rule.address, baseline: latestRefresh }] };
  }
  const events = occurrences(state.baseline).map((occurrence): PlannedEvent => ({
    key: eventKey(rule.id, occurrence.subject, occurrence.trigger),
    ruleId: rule.id,
    kind: rule.kind,
    status: 'firing',
    subject: occurrence.subject,
    tick: occurrence.tick,
    text: `[${rule.id}] ${occurrence.text}`,
    data: occurrence.data,
  }));
  return { events, states: [] };
}
