import Big from 'big.js';
import type { positionPnl } from '../db/schema/views.ts';
import { formatSpan } from '../runtime/time-span.ts';
import { groupThousands } from '../runtime/number-text.ts';
import { formatTime, shortAddress, shortPositionId, tokenLabel } from './format.ts';
import { formatDuration } from '../config/duration.ts';
import type { Direction, EpisodeRule } from './rules.ts';

/** What an episode rule sees, subject by subject, and whether its condition holds. Pure. */

/** The figures of an event, as sent in the payload's `data`. */
export type AlertData = Record<string, string | number | boolean | null>;

export interface Condition {
  subject: string;
  /** Whether the condition holds; undefined when the data cannot tell (nothing then changes). */
  holds: boolean | undefined;
  /** The data time observed: a price time, a snapshot tick, the newest successful tick. */
  tick: Date | null;
  /** One sentence on what is observed, true or not (a resolved event says it after "Resolved:"). */
  text: string;
  data: AlertData;
}

/** A change rule's newest value (a price, USD, a floor in native units) and its reference (observations.ts). */
export interface ChangeObservation {
  value: string;
  at: Date;
  refValue: string | null;
  refAt: Date | null;
  /** Prices: the token's symbol; floors: the collection's name and native token. */
  symbol?: string | null;
  name?: string | null;
  nativeSymbol?: string | null;
}

/** A position of the address's latest positions refresh with a health factor (a Borrow's `current.healthy`). */
export type HealthObservation = Pick<
  typeof positionPnl.$inferSelect,
  'owner' | 'positionId' | 'type' | 'protocolId' | 'snapshotAt'
> & { healthFactor: string };

/** Percent change from `from` to `to`, exact; undefined when `from` is not a positive number. */
export function percentChange(from: string | null, to: string): Big | undefined {
  const start = from === null ? undefined : new Big(from);
  if (!start?.gt(0)) return undefined;
  return new Big(to).minus(start).div(start).times(100);
}

/** Whether a change reaches the rule's percent in its direction. */
export function reaches(change: Big, percent: number, direction: Direction): boolean {
  const limit = new Big(percent);
  if (direction === 'up') return change.gte(limit);
  if (direction === 'down') return change.lte(limit.neg());
  return change.abs().gte(limit);
}

/** "rose 5.31 %", "fell 0.20 %", "did not move". */
function moved(change: Big): string {
  const value = Number(change.toFixed(4));
  if (value === 0) return 'did not move';
  return `${value > 0 ? 'rose' : 'fell'} ${Math.abs(value).toFixed(2)} %`;
}

export type ChangeRule = Extract<EpisodeRule, { kind: 'price_change' | 'portfolio_change' | 'nft_floor_change' }>;

/** How a change rule names its subject, says it has no data, and spells its values. */
interface ChangeSpelling {
  subject: string;
  label: string;
  missing: string;
  amount: (value: string) => string;
  unit: string;
  asOf: string;
  data: AlertData;
}

function changeSpelling(rule: ChangeRule, observation: ChangeObservation | undefined): ChangeSpelling {
  const at = observation ? formatTime(observation.at) : '';
  switch (rule.kind) {
    case 'price_change':
      return {
        subject: rule.token,
        label: tokenLabel(rule.token, observation?.symbol ?? null),
        missing: 'has no stored price yet',
        amount: groupThousands,
        unit: '',
        asOf: `price time ${at}`,
        data: { token: rule.token, symbol: observation?.symbol ?? null },
      };
    case 'portfolio_change':
      return {
        subject: rule.address,
        label: `Portfolio of ${shortAddress(rule.address)}`,
        missing: 'has not been refreshed yet',
        amount: (value) => groupThousands(Number(value).toFixed(2)),
        unit: ' USD',
        asOf: `as of ${at}`,
        data: { address: rule.address },
      };
    case 'nft_floor_change':
      return {
        subject: rule.collection,
        label: `Floor of ${observation?.name ?? rule.collection}`,
        missing: 'has no stored floor price',
        amount: groupThousands,
        unit: observation?.nativeSymbol ? ` ${observation.nativeSymbol}` : '',
        asOf: `as of ${at}`,
        data: {
          collection: rule.collection,
          collection_name: observation?.name ?? null,
          native_token_symbol: observation?.nativeSymbol ?? null,
        },
      };
  }
}

/** A price, portfolio or floor change rule's condition: the change over its window reaches its percent. */
export function changeCondition(rule: ChangeRule, observation: ChangeObservation | undefined): Condition {
  const { subject, label, missing, amount, unit, asOf, data } = changeSpelling(rule, observation);
  if (!observation) return { subject, holds: undefined, tick: null, text: `${label} ${missing}`, data: {} };
  const { value, at, refValue, refAt } = observation;
  const change = percentChange(refValue, value);
  const window = formatDuration(rule.windowMs);
  const fromTo = refValue === null ? '' : `, from ${amount(refValue)} to ${amount(value)}${unit} (${asOf})`;
  const condition = {
    subject,
    tick: at,
    data: {
      ...data,
      value,
      at: at.toISOString(),
      reference_value: refValue,
      reference_at: refAt?.toISOString() ?? null,
      change_percent: change === undefined ? null : Number(change.toFixed(4)),
      window,
      percent: rule.percent,
      direction: rule.direction,
    },
  };
  if (change === undefined) {
    return { ...condition, holds: undefined, text: `${label} has no value ${window} earlier to compare with${fromTo}` };
  }
  const sign = { up: '+', down: '-', any: '±' }[rule.direction];
  return {
    ...condition,
    holds: reaches(change, rule.percent, rule.direction),
    text: `${label} ${moved(change)} in ${window}${fromTo}; threshold ${sign}${rule.percent} %`,
  };
}

export function positionSubject(owner: string, positionId: string): string {
  return `${owner}/${positionId}`;
}

export function healthConditions(
  rule: Extract<EpisodeRule, { kind: 'health_below' }>,
  observations: HealthObservation[],
): Condition[] {
  return observations.map((position) => {
    const health = Number(position.healthFactor);
    const where = position.protocolId ? `${position.type} on ${position.protocolId}` : position.type;
    const holds = new Big(position.healthFactor).lt(rule.threshold);
    return {
      subject: positionSubject(position.owner, position.positionId),
      holds,
      tick: position.snapshotAt,
      text: `Health factor of ${shortAddress(position.owner)}'s position ${shortPositionId(position.positionId)} (${where}) is ${health}, ${holds ? 'below' : 'at or above'} ${rule.threshold} (as of ${formatTime(position.snapshotAt)})`,
      data: {
        address: position.owner,
        position_id: position.positionId,
        type: position.type,
        protocol_id: position.protocolId,
        health_factor: health,
        threshold: rule.threshold,
      },
    };
  });
}

/** A dataset is stale when its newest successful tick (null: it never succeeded) is older than the max age. */
export function staleCondition(
  rule: Extract<EpisodeRule, { kind: 'stale' }>,
  newestTick: Date | null,
  now: Date,
): Condition {
  const maxAge = formatDuration(rule.maxAgeMs);
  const ageMs = newestTick ? now.getTime() - newestTick.getTime() : Infinity;
  const holds = ageMs > rule.maxAgeMs;
  const text = newestTick
    ? `${rule.dataset} ${holds ? 'is stale' : 'is fresh'}: its newest successful tick, ${formatTime(newestTick)}, is ${formatSpan(ageMs / 1000)} old (max age ${maxAge})`
    : `${rule.dataset} has never been refreshed successfully (max age ${maxAge})`;
  const data = {
    dataset: rule.dataset,
    newest_tick: newestTick?.toISOString() ?? null,
    age_seconds: newestTick ? Math.round(ageMs / 1000) : null,
    max_age: maxAge,
  };
  return { subject: rule.dataset, holds, tick: newestTick, text, data };
}

/** The sentence of an episode whose subject the rule no longer sees (a closed position, an edited rule). */
export function goneText(rule: EpisodeRule, subject: string): string {
  if (rule.kind === 'health_below') {
    const slash = subject.indexOf('/');
    return `${shortAddress(subject.slice(0, slash))}'s position ${shortPositionId(subject.slice(slash + 1))} no longer has a health factor (closed)`;
  }
  return `${subject} is no longer watched by this rule`;
}
