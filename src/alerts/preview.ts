import type { RuleEvaluation } from './evaluator.ts';
import { formatTime, shortAddress, tokenLabel } from './format.ts';
import { isEpisodeRule, type AlertRule } from './rules.ts';

/** What `chaintap alerts test` prints of one rule's evaluation: a heading, then one line per subject. */
export function describeEvaluation({ rule, conditions, states, plan }: RuleEvaluation): string[] {
  const lines = [`${rule.id} (${ruleSummary(rule)})`];
  if (isEpisodeRule(rule)) {
    for (const condition of conditions) {
      const state = states.find((candidate) => candidate.subject === condition.subject);
      const event = plan.events.find((candidate) => candidate.subject === condition.subject);
      const ends = plan.states.some((next) => next.subject === condition.subject && !next.episodeOpen);
      if (event) lines.push(`  would ${event.status === 'firing' ? 'fire' : 'resolve'}: ${event.text}`);
      else if (ends)
        lines.push(`  would end its episode (no resolved event: send_resolved is false): ${condition.text}`);
      else if (condition.holds === true && state?.episodeOpen)
        lines.push(
          `  firing since ${state.episodeTick ? formatTime(state.episodeTick) : 'before any tick'} (one episode: nothing new): ${condition.text}`,
        );
      else if (condition.holds === true) lines.push(`  holds, within the cooldown (nothing sent): ${condition.text}`);
      else if (condition.holds === false) lines.push(`  not firing: ${condition.text}`);
      else lines.push(`  cannot tell yet: ${condition.text}`);
    }
    const observed = new Set(conditions.map((condition) => condition.subject));
    for (const event of plan.events) {
      if (!observed.has(event.subject)) lines.push(`  would resolve: ${event.text}`);
    }
    if (conditions.length === 0 && plan.events.length === 0) lines.push('  nothing to watch yet');
    return lines;
  }
  const baseline = plan.states[0]?.baseline;
  if (baseline) {
    lines.push(`  first evaluation: would watch from the positions refresh of ${formatTime(baseline)} (nothing fires)`);
  } else if (!states.some((state) => state.baseline)) {
    lines.push('  no positions refresh of the address yet: nothing to watch');
  } else if (plan.events.length === 0) {
    lines.push('  nothing new');
  }
  for (const event of plan.events) lines.push(`  would fire: ${event.text}`);
  return lines;
}

function ruleSummary(rule: AlertRule): string {
  if (rule.kind === 'price_change') return `${rule.kind} ${tokenLabel(rule.token, null)}`;
  if (rule.kind === 'nft_floor_change') return `${rule.kind} ${rule.collection}`;
  if (rule.kind === 'stale') return `${rule.kind} ${rule.dataset}`;
  return `${rule.kind} ${shortAddress(rule.address)}`;
}
