import Big from 'big.js';
import { formatDuration } from './duration.ts';
import { formatSpan } from '../runtime/time-span.ts';
import { groupThousands } from '../runtime/number-text.ts';
import { formatPercent, formatTime, formatUsd, shortAddress, shortPositionId, tokenLabel } from './format.ts';
import type { Direction, EpisodeRule } from './rules.ts';

/**
 * What an episode rule sees in the data, subject by subject, and whether its condition holds. Pure:
 * the observations come in (src/alerts/observations.ts reads them), conditions go out.
 */

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

/** The newest price of a token and the price one window before it. */
export interface PriceObservation {
  coinType: string;
  symbol: string | null;
  price: string;
  priceTime: Date;
  /** The last price at or before priceTime - window, when one exists within two windows. */
  refPrice: string | null;
  refTime: Date | null;
}

/** An address's portfolio value (USD) at its latest refreshes, and as of one window earlier. */
export interface PortfolioObservation {
  address: string;
  value: string;
  at: Date;
  refValue: string | null;
  refAt: Date | null;
}

/** A collection's newest floor price (native units) and the floor one window before it. */
export interface FloorObservation {
  collectionId: string;
  name: string | null;
  nativeSymbol: string | null;
  floor: string;
  at: Date;
  refFloor: string | null;
  refAt: Date | null;
}

/** A position of the address's latest positions refresh whose snapshot carries a health factor. */
export interface HealthObservation {
  owner: string;
  positionId: string;
  type: string;
  protocolId: string | null;
  snapshotAt: Date;
  /** position_pnl.health_factor (numeric text): a Borrow's `current.healthy`. */
  healthFactor: string;
}

/** The newest successful tick of a dataset (null: it never succeeded). */
export interface FreshnessObservation {
  newestTick: Date | null;
}

/** Percent change from `from` to `to`, exact; undefined when `from` is not a positive number. */
export function percentChange(from: string | null, to: string): Big | undefined {
  if (from === null) return undefined;
  const start = new Big(from);
  if (start.lte(0)) return undefined;
  return new Big(to).minus(start).div(start).times(100);
}

/** Whether a change reaches the rule's percent in its direction. */
export function reaches(change: Big, percent: number, direction: Direction): boolean {
  const limit = new Big(percent);
  if (direction === 'up') return change.gte(limit);
  if (direction === 'down') return change.lte(limit.neg());
  return change.abs().gte(limit);
}

function threshold(percent: number, direction: Direction): string {
  return `${direction === 'up' ? '+' : direction === 'down' ? '-' : '±'}${percent} %`;
}

/** "rose 5.31 %", "fell 0.20 %", "did not move". */
function moved(change: Big): string {
  const value = Number(change.toFixed(4));
  if (value === 0) return 'did not move';
  return `${value > 0 ? 'rose' : 'fell'} ${formatPercent(Math.abs(value)).slice(1)}`;
}

interface ChangeRule {
  windowMs: number;
  percent: number;
  direction: Direction;
}

function changeCondition(
  rule: ChangeRule,
  subject: string,
  now: { value: string; at: Date },
  ref: { value: string | null; at: Date | null },
  describe: (movedText: string) => string,
): Condition {
  const change = percentChange(ref.value, now.value);
  const data: AlertData = {
    value: now.value,
    at: now.at.toISOString(),
    reference_value: ref.value,
    reference_at: ref.at?.toISOString() ?? null,
    change_percent: change === undefined ? null : Number(change.toFixed(4)),
    window: formatDuration(rule.windowMs),
    percent: rule.percent,
    direction: rule.direction,
  };
  if (change === undefined) {
    return {
      subject,
      holds: undefined,
      tick: now.at,
      text: describe(`has no value ${formatDuration(rule.windowMs)} earlier to compare with`),
      data,
    };
  }
  return {
    subject,
    holds: reaches(change, rule.percent, rule.direction),
    tick: now.at,
    text: `${describe(`${moved(change)} in ${formatDuration(rule.windowMs)}`)}; threshold ${threshold(rule.percent, rule.direction)}`,
    data,
  };
}

export function priceCondition(
  rule: Extract<EpisodeRule, { kind: 'price_change' }>,
  observation: PriceObservation | undefined,
): Condition {
  const label = tokenLabel(rule.token, observation?.symbol ?? null);
  if (!observation) {
    return { subject: rule.token, holds: undefined, tick: null, text: `${label} has no stored price yet`, data: {} };
  }
  const condition = changeCondition(
    rule,
    rule.token,
    { value: observation.price, at: observation.priceTime },
    { value: observation.refPrice, at: observation.refTime },
    (movedText) =>
      observation.refPrice === null
        ? `${label} ${movedText}`
        : `${label} ${movedText}, from ${groupThousands(observation.refPrice)} to ${groupThousands(observation.price)} (price time ${formatTime(observation.priceTime)})`,
  );
  return { ...condition, data: { token: rule.token, symbol: observation.symbol, ...condition.data } };
}

export function portfolioCondition(
  rule: Extract<EpisodeRule, { kind: 'portfolio_change' }>,
  observation: PortfolioObservation | undefined,
): Condition {
  const label = `Portfolio of ${shortAddress(rule.address)}`;
  if (!observation) {
    return {
      subject: rule.address,
      holds: undefined,
      tick: null,
      text: `${label} has not been refreshed yet`,
      data: {},
    };
  }
  const condition = changeCondition(
    rule,
    rule.address,
    { value: observation.value, at: observation.at },
    { value: observation.refValue, at: observation.refAt },
    (movedText) =>
      observation.refValue === null
        ? `${label} ${movedText}`
        : `${label} ${movedText}, from ${formatUsd(observation.refValue)} to ${formatUsd(observation.value)} USD (as of ${formatTime(observation.at)})`,
  );
  return { ...condition, data: { address: rule.address, ...condition.data } };
}

export function floorCondition(
  rule: Extract<EpisodeRule, { kind: 'nft_floor_change' }>,
  observation: FloorObservation | undefined,
): Condition {
  const label = `Floor of ${observation?.name ?? rule.collection}`;
  if (!observation) {
    return {
      subject: rule.collection,
      holds: undefined,
      tick: null,
      text: `${label} has no stored floor price`,
      data: {},
    };
  }
  const unit = observation.nativeSymbol ? ` ${observation.nativeSymbol}` : '';
  const condition = changeCondition(
    rule,
    rule.collection,
    { value: observation.floor, at: observation.at },
    { value: observation.refFloor, at: observation.refAt },
    (movedText) =>
      observation.refFloor === null
        ? `${label} ${movedText}`
        : `${label} ${movedText}, from ${groupThousands(observation.refFloor)} to ${groupThousands(observation.floor)}${unit} (as of ${formatTime(observation.at)})`,
  );
  return {
    ...condition,
    data: {
      collection: rule.collection,
      collection_name: observation.name,
      native_token_symbol: observation.nativeSymbol,
      ...condition.data,
    },
  };
}

/** The subject of a position: `<owner>/<position_id>`. */
export function positionSubject(owner: string, positionId: string): string {
  return `${owner}/${positionId}`;
}

export function healthConditions(
  rule: Extract<EpisodeRule, { kind: 'health_below' }>,
  observations: HealthObservation[],
): Condition[] {
  return observations.flatMap((position) => {
    const health = Number(position.healthFactor);
    const where = position.protocolId ? `${position.type} on ${position.protocolId}` : position.type;
    const holds = new Big(position.healthFactor).lt(rule.threshold);
    return [
      {
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
      },
    ];
  });
}

export function staleCondition(
  rule: Extract<EpisodeRule, { kind: 'stale' }>,
  observation: FreshnessObservation,
  now: Date,
): Condition {
  const maxAge = formatDuration(rule.maxAgeMs);
  const data: AlertData = {
    dataset: rule.dataset,
    newest_tick: observation.newestTick?.toISOString() ?? null,
    age_seconds: observation.newestTick ? Math.round((now.getTime() - observation.newestTick.getTime()) / 1000) : null,
    max_age: maxAge,
  };
  if (!observation.newestTick) {
    return {
      subject: rule.dataset,
      holds: true,
      tick: null,
      text: `${rule.dataset} has never been refreshed successfully (max age ${maxAge})`,
      data,
    };
  }
  const ageMs = now.getTime() - observation.newestTick.getTime();
  const holds = ageMs > rule.maxAgeMs;
  return {
    subject: rule.dataset,
    holds,
    tick: observation.newestTick,
    text: `${rule.dataset} ${holds ? 'is stale' : 'is fresh'}: its newest successful tick, ${formatTime(observation.newestTick)}, is ${formatSpan(ageMs / 1000)} old (max age ${maxAge})`,
    data,
  };
}

/** The sentence of an episode whose subject the rule no longer sees (a closed position, an edited rule). */
export function goneText(rule: EpisodeRule, subject: string): string {
  if (rule.kind === 'health_below') {
    const slash = subject.indexOf('/');
    const owner = subject.slice(0, slash);
    return `${shortAddress(owner)}'s position ${shortPositionId(subject.slice(slash + 1))} no longer has a health factor (closed)`;
  }
  return `${subject} is no longer watched by this rule`;
}
