import type { RuleEvaluation } from './evaluator.ts';
import { formatTime, shortAddress, tokenLabel } from './format.ts';
import { isEpisodeRule, type AlertRule } from './rules.ts';

/** What `chaintap alerts test` says of one subject of a rule (or of the rule as a whole, subject null). */
export type PreviewOutcome =
  | 'would_fire'
  | 'would_resolve'
  | 'would_end_episode'
  | 'firing'
  | 'within_cooldown'
  | 'not_firing'
  | 'cannot_tell'
  | 'nothing_to_watch'
  | 'first_evaluation'
  | 'nothing_new';

export interface SubjectPreview {
  subject: string | null;
  outcome: PreviewOutcome;
  /** The condition or event in one sentence; for a whole rule, what it would do. */
  text: string;
  /** `firing`: the tick its episode started at, null before any tick. */
  since?: string | null;
}

/** A rule's evaluation as `alerts test` reports it (`--json`: docs/operations.md, "JSON output"). */
export interface RulePreview {
  rule: string;
  kind: AlertRule['kind'];
  summary: string;
  subjects: SubjectPreview[];
}

/** Each subject's outcome of one rule's evaluation, in the order `alerts test` prints them. */
export function previewEvaluation({ rule, conditions, states, plan }: RuleEvaluation): RulePreview {
  const subjects: SubjectPreview[] = [];
  const add = (subject: string | null, outcome: PreviewOutcome, text: string) =>
    subjects.push({ subject, outcome, text });
  if (isEpisodeRule(rule)) {
    for (const condition of conditions) {
      const { subject, text } = condition;
      const state = states.find((candidate) => candidate.subject === subject);
      const event = plan.events.find((candidate) => candidate.subject === subject);
      const ends = plan.states.some((next) => next.subject === subject && !next.episodeOpen);
      if (event) add(subject, event.status === 'firing' ? 'would_fire' : 'would_resolve', event.text);
      else if (ends) add(subject, 'would_end_episode', text);
      else if (condition.holds === true && state?.episodeOpen) {
        subjects.push({ subject, outcome: 'firing', text, since: state.episodeTick?.toISOString() ?? null });
      } else if (condition.holds === true) add(subject, 'within_cooldown', text);
      else if (condition.holds === false) add(subject, 'not_firing', text);
      else add(subject, 'cannot_tell', text);
    }
    const observed = new Set(conditions.map((condition) => condition.subject));
    for (const event of plan.events) {
      if (!observed.has(event.subject)) add(event.subject, 'would_resolve', event.text);
    }
    if (conditions.length === 0 && plan.events.length === 0) add(null, 'nothing_to_watch', 'nothing to watch yet');
  } else {
    const baseline = plan.states[0]?.baseline;
    if (baseline) {
      add(
        null,
        'first_evaluation',
        `would watch from the positions refresh of ${formatTime(baseline)} (nothing fires)`,
      );
    } else if (!states.some((state) => state.baseline)) {
      add(null, 'nothing_to_watch', 'no positions refresh of the address yet: nothing to watch');
    } else if (plan.events.length === 0) {
      add(null, 'nothing_new', 'nothing new');
    }
    for (const event of plan.events) add(event.subject, 'would_fire', event.text);
  }
  return { rule: rule.id, kind: rule.kind, summary: ruleSummary(rule), subjects };
}

/** How each outcome is introduced in the text; the rule-level ones say it all in their text. */
const OUTCOME_WORDS: Record<PreviewOutcome, (subject: SubjectPreview) => string | undefined> = {
  would_fire: () => 'would fire',
  would_resolve: () => 'would resolve',
  would_end_episode: () => 'would end its episode (no resolved event: send_resolved is false)',
  firing: ({ since }) =>
    `firing since ${since ? formatTime(new Date(since)) : 'before any tick'} (one episode: nothing new)`,
  within_cooldown: () => 'holds, within the cooldown (nothing sent)',
  not_firing: () => 'not firing',
  cannot_tell: () => 'cannot tell yet',
  nothing_to_watch: () => undefined,
  first_evaluation: () => 'first evaluation',
  nothing_new: () => undefined,
};

/** What `chaintap alerts test` prints of one rule's evaluation: a heading, then one line per subject. */
export function describeEvaluation(evaluation: RuleEvaluation): string[] {
  const preview = previewEvaluation(evaluation);
  return [
    `${preview.rule} (${preview.summary})`,
    ...preview.subjects.map((subject) => {
      const words = OUTCOME_WORDS[subject.outcome](subject);
      return `  ${words ? `${words}: ` : ''}${subject.text}`;
    }),
  ];
}

function ruleSummary(rule: AlertRule): string {
  if (rule.kind === 'price_change') return `${rule.kind} ${tokenLabel(rule.token, null)}`;
  if (rule.kind === 'nft_floor_change') return `${rule.kind} ${rule.collection}`;
  if (rule.kind === 'stale') return `${rule.kind} ${rule.dataset}`;
  return `${rule.kind} ${shortAddress(rule.address)}`;
}
