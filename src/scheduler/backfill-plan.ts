import { InvalidInputError } from '../errors.ts';
import { formatSpan } from '../runtime/time-span.ts';
import type { UpstreamRate } from '../config/upstream-rate.ts';
import type { PriceJobData } from '../queue/jobs.ts';
import { MAX_COINS_PER_PRICE_REQUEST } from '../upstream/limits.ts';
import { priceJobs, type PlannedJob } from './job-builders.ts';
import { parseInterval } from './parse-time.ts';

/** The upstream's useful resolution: prices are minute samples, a finer step asks for the same one again. */
export const MIN_BACKFILL_INTERVAL_MS = 60_000;
/** Above this many requests a backfill starts only with --yes, or when a person at a terminal agrees. */
export const CONFIRM_ABOVE_REQUESTS = 10_000;

/** A backfill's --interval: parseInterval, and not finer than the upstream's prices are. */
export function parseBackfillInterval(value: string): number {
  const ms = parseInterval(value);
  if (ms < MIN_BACKFILL_INTERVAL_MS)
    throw new InvalidInputError(
      `invalid --interval "${value}": below 1m, the upstream's useful resolution (prices are minute samples); use 1m or more`,
    );
  return ms;
}

/** Every step from `from` to `to`, both ends included when they fall on a step. */
export function backfillTimes(from: Date, to: Date, intervalMs: number, maxSteps = 1_000_000): Date[] {
  if (from.getTime() > to.getTime()) throw new InvalidInputError('--from must not be after --to');
  const steps = Math.floor((to.getTime() - from.getTime()) / intervalMs) + 1;
  if (steps > maxSteps)
    throw new InvalidInputError(
      `${steps} time steps is more than ${maxSteps}: use a larger --interval or a shorter range`,
    );
  return Array.from({ length: steps }, (_, i) => new Date(from.getTime() + i * intervalMs));
}

/** Pure: the price jobs a backfill still needs (a price in [step, step + interval) counts as the step's). */
export function planBackfill(
  coinTypes: string[],
  times: Date[],
  intervalMs: number,
  stored: Map<string, Set<number>>,
): { jobs: PlannedJob<PriceJobData>[]; skipped: number; byTick: Map<number, string[]> } {
  const storedSorted = new Map([...stored].map(([coin, set]) => [coin, [...set].sort((a, b) => a - b)]));
  const jobs: PlannedJob<PriceJobData>[] = [];
  const byTick = new Map<number, string[]>();
  let skipped = 0;
  for (const time of times) {
    const start = time.getTime();
    const missing = coinTypes.filter((coin) => !hasSampleIn(storedSorted.get(coin), start, start + intervalMs));
    skipped += coinTypes.length - missing.length;
    if (missing.length === 0) continue;
    const planned = priceJobs(missing, time, { at: time, kind: 'backfill' });
    byTick.set(
      start,
      planned.map((job) => job.opts.jobId),
    );
    jobs.push(...planned);
  }
  return { jobs, skipped, byTick };
}

function hasSampleIn(sorted: number[] | undefined, start: number, end: number): boolean {
  if (!sorted?.length) return false;
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < start) low = mid + 1;
    else high = mid;
  }
  return low < sorted.length && sorted[low]! < end;
}

/** What a backfill will ask of the upstream, shown before it starts: steps x batches of 50 coin types. */
export function estimateBackfill(steps: number, coinTypes: number, requests: number) {
  const batches = Math.ceil(coinTypes / MAX_COINS_PER_PRICE_REQUEST);
  // `requests`: those still needed (a batch whose prices are all stored is skipped).
  return { steps, coinTypes, batches, planned: steps * batches, requests };
}

export type BackfillEstimate = ReturnType<typeof estimateBackfill>;

/** The estimate in words, with its time at the quota (a lower bound: scheduled requests share it). */
export function describeBackfillEstimate(estimate: BackfillEstimate, rate: UpstreamRate): string[] {
  const { steps, coinTypes, batches, planned, requests } = estimate;
  return [
    `backfill plan: ${count(steps)} step(s) x ${count(batches)} batch(es) of up to ${MAX_COINS_PER_PRICE_REQUEST} tokens (${count(coinTypes)} token(s)) = ${count(planned)} request(s); ${count(planned - requests)} already stored, ${count(requests)} to send`,
    `at ${rate.label} (UPSTREAM_RATE) that takes at least ${formatSpan(Math.ceil(requests / rate.rps))}, longer while scheduled requests share the quota`,
  ];
}

/** Whether a backfill may start: small ones or --yes go, others ask a person at a terminal, or are refused. */
export function backfillConsent(requests: number, flags: { yes: boolean; terminal: boolean }): 'go' | 'ask' | 'refuse' {
  if (requests <= CONFIRM_ABOVE_REQUESTS || flags.yes) return 'go';
  return flags.terminal ? 'ask' : 'refuse';
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
