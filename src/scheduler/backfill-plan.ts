import { InvalidInputError } from '../errors.js';
import type { PriceJobData } from '../queue/jobs.js';
import { priceJobs, type PlannedJob } from './job-builders.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "15m", "1h", "1d" -> milliseconds. */
export function parseInterval(value: string): number {
  const match = /^(\d+)\s*([smhd])$/.exec(value.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : 0;
  if (!ms)
    throw new InvalidInputError(`invalid --interval "${value}": expected a number and a unit, such as 15m, 1h or 1d`);
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

/**
 * Pure: the price jobs a backfill still needs. A coin type counts as stored at a step when a price
 * with a time in [step, step + interval) is stored (the upstream may answer with its nearest sample).
 */
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
    const planned = priceJobs(missing, time, { at: time, kind: 'backfill' }).map((job) => ({
      ...job,
      data: { ...job.data, backfill: true as const },
    }));
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
