import { groupThousands } from '../runtime/number-text.ts';

/** The numbers behind the charts (charts.ts): extents, thinning per pixel, round value and UTC time ticks. */

/** The lowest and highest finite value, in one pass (`Math.min(...values)` overflows the stack past ~50,000). */
export function extentOf(values: Iterable<number | null>): { low: number; high: number } | undefined {
  let low = Infinity;
  let high = -Infinity;
  for (const value of values) {
    if (value === null || !Number.isFinite(value)) continue;
    if (value < low) low = value;
    if (value > high) high = value;
  }
  return low <= high ? { low, high } : undefined;
}

export interface TimedValue {
  time: number;
  /** null: a gap, where the line breaks. */
  value: number | null;
}

/**
 * Per bucket of [from, to] cut in `buckets` spans, its first, lowest, highest and last value (a spike
 * survives) and its first and last gap (the line still breaks). Points must be in time order.
 */
export function thinPerBucket<T extends TimedValue>(
  points: readonly T[],
  from: number,
  to: number,
  buckets: number,
): T[] {
  if (points.length <= 4 * buckets) return [...points];
  const span = Math.max(1, to - from);
  const bucketOf = (point: T) => Math.min(buckets - 1, Math.max(0, Math.floor(((point.time - from) / span) * buckets)));
  return [...Map.groupBy(points, bucketOf).values()].flatMap(keepExtremes);
}

/** The kept points of one bucket, in time order (the first of equal lows or highs). */
function keepExtremes<T extends TimedValue>(points: T[]): T[] {
  const valued = points.filter((point) => point.value !== null);
  const gaps = points.filter((point) => point.value === null);
  const lowest = valued.reduce((low, point) => (point.value! < low.value! ? point : low), valued[0]);
  const highest = valued.reduce((high, point) => (point.value! > high.value! ? point : high), valued[0]);
  const kept = new Set([valued[0], lowest, highest, valued.at(-1), gaps[0], gaps.at(-1)]);
  return points.filter((point) => kept.has(point));
}

const E10 = Math.sqrt(50);
const E5 = Math.sqrt(10);
const E2 = Math.sqrt(2);

/**
 * d3-array's tickIncrement: a round step (1, 2 or 5 times a power of ten) giving about `count`
 * ticks over [low, high]. Negative for a step below 1: its inverse, so that ticks are computed by a
 * division that leaves no float dust (0.30000000000000004).
 */
function tickIncrement(low: number, high: number, count: number): number {
  const step = (high - low) / Math.max(1, count);
  const power = Math.floor(Math.log10(step));
  const error = step / 10 ** power;
  const factor = error >= E10 ? 10 : error >= E5 ? 5 : error >= E2 ? 2 : 1;
  return power >= 0 ? factor * 10 ** power : -(10 ** -power) / factor;
}

/**
 * About `count` round ticks covering [low, high], widened to whole steps (d3's `nice`), and the step.
 * A flat range is widened around its value first, so that it is drawn across the middle.
 */
export function niceTicks(low: number, high: number, count = 5) {
  if (high === low) {
    const pad = Math.abs(high) * 0.01 || 1;
    low -= pad;
    high += pad;
  }
  // A value as a count of steps and back; a negative increment is an inverse step (tickIncrement).
  const toSteps = (value: number, increment: number) => (increment > 0 ? value / increment : value * -increment);
  const fromSteps = (steps: number, increment: number) => (increment > 0 ? steps * increment : steps / -increment);
  // As d3's nice(): widen to the step, and again while the widened domain asks for another step.
  let increment = tickIncrement(low, high, count);
  for (let i = 0; i < 10; i += 1) {
    low = fromSteps(Math.floor(toSteps(low, increment)), increment);
    high = fromSteps(Math.ceil(toSteps(high, increment)), increment);
    const next = tickIncrement(low, high, count);
    if (next === increment) break;
    increment = next;
  }
  const ticks: number[] = [];
  for (let i = Math.round(toSteps(low, increment)); i <= Math.round(toSteps(high, increment)); i += 1) {
    ticks.push(fromSteps(i, increment));
  }
  return { low, high, ticks, step: fromSteps(1, increment) };
}

const SUFFIXES = { T: 1e12, B: 1e9, M: 1e6, K: 1e3 };

/** Tick labels: K, M, B, T by the largest tick (`$1.5M`), the step's decimals, `prefix` after the sign. */
export function tickFormat(ticks: readonly number[], step: number, prefix = ''): (value: number) => string {
  const largest = ticks.reduce((most, tick) => Math.max(most, Math.abs(tick)), 0);
  const [suffix, scale] = Object.entries(SUFFIXES).find(([, size]) => largest >= size) ?? ['', 1];
  const decimals = decimalsOf(step / scale);
  return (value) => {
    const scaled = value / scale;
    const text = groupThousands(Math.abs(scaled).toFixed(decimals));
    if (!/[1-9]/.test(text)) return `${prefix}0`;
    return `${scaled < 0 ? '-' : ''}${prefix}${text}${suffix}`;
  };
}

/** The fewest decimals that write `step` whole (0.5: 1, 2.5: 1, 0.0002: 4). */
function decimalsOf(step: number): number {
  for (let decimals = 0; decimals < 20; decimals += 1) {
    const scaled = step * 10 ** decimals;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * scaled) return decimals;
  }
  return 20;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Steps of time ticks, in ms, up to two weeks; longer spans step by calendar months. */
const TIME_STEPS = [
  ...[1, 2, 5, 10, 15, 30].map((minutes) => minutes * MINUTE),
  ...[1, 2, 3, 6, 12].map((hours) => hours * HOUR),
  ...[1, 2, 7, 14].map((days) => days * DAY),
];
const MONTH_STEPS = [1, 2, 3, 6, 12, 24, 60, 120];
/** 1970-01-05, a Monday: weekly ticks fall on Mondays. */
const MONDAY = 4 * DAY;

/**
 * At most `maxTicks` UTC times in [from, to] on round steps (a minute to ten years; midnight, Mondays,
 * the 1st), labelled as needed: `14:00`, `11-21 14:00`, `11-21`, `2026-11-21`, `2026-11`, `2026`.
 */
export function timeTicks(from: number, to: number, maxTicks = 6) {
  const span = Math.max(1, to - from);
  const step = TIME_STEPS.find((candidate) => span / candidate <= maxTicks);
  const sameYear = new Date(from).getUTCFullYear() === new Date(to).getUTCFullYear();
  if (step !== undefined) {
    const origin = step === 7 * DAY || step === 14 * DAY ? MONDAY : 0;
    const ticks: number[] = [];
    for (let time = Math.ceil((from - origin) / step) * step + origin; time <= to; time += step) ticks.push(time);
    const label = (time: number) => {
      const iso = new Date(time).toISOString();
      if (step >= DAY) return sameYear ? iso.slice(5, 10) : iso.slice(0, 10);
      return span <= DAY ? iso.slice(11, 16) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
    };
    return { ticks, label };
  }
  const start = new Date(from);
  const months = span / (30.4375 * DAY);
  const monthStep = MONTH_STEPS.find((candidate) => months / candidate <= maxTicks) ?? MONTH_STEPS.at(-1)!;
  const ticks: number[] = [];
  // From the first month boundary at or after `from` whose month index is a multiple of the step.
  let index = Math.ceil((start.getUTCFullYear() * 12 + start.getUTCMonth()) / monthStep) * monthStep;
  for (; ; index += monthStep) {
    const time = Date.UTC(Math.floor(index / 12), index % 12, 1);
    if (time < from) continue;
    if (time > to) break;
    ticks.push(time);
  }
  const label = (time: number) => new Date(time).toISOString().slice(0, monthStep >= 12 ? 4 : 7);
  return { ticks, label };
}
