import { InvalidInputError } from '../errors.ts';
import { parseInterval } from '../scheduler/parse-time.ts';

/**
 * What every report is asked for, checked before anything is read or written: the format, and the
 * time range with its step. Shared by `chaintap report` and the ops server's report page.
 */

const REPORT_FORMATS = ['csv', 'json', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const DEFAULT_REPORT_DAYS = 30;
export const DEFAULT_REPORT_INTERVAL = '1d';
/** Most rows of a portfolio series (held whole: the HTML charts it); a year at 15m is 35,040. */
export const MAX_PORTFOLIO_STEPS = 100_000;
/** Most buckets per token of a price report (streamed); a year at 1m is 525,600. */
const MAX_PRICE_BUCKETS = 1_000_000;

export interface ReportRange {
  from: Date;
  to: Date;
  intervalMs: number;
  /** The step as asked for, e.g. "1d". */
  interval: string;
}

export function parseReportFormat(value: string): ReportFormat {
  const format = value.trim().toLowerCase();
  if (!(REPORT_FORMATS as readonly string[]).includes(format))
    throw new InvalidInputError(`unknown --format "${value}": expected one of ${REPORT_FORMATS.join(', ')}`);
  return format as ReportFormat;
}

/** How errors name the parameters: the command's flags, or the report page's query (`from`, `to`, `interval`). */
export type RangeNames = { from: string; to: string; interval: string };
const FLAG_NAMES: RangeNames = { from: '--from', to: '--to', interval: '--interval' };

/**
 * The range of a report: `to` defaults to `now`, `from` to 30 days before `to`, the step to 1d.
 * `from` after `to` is refused.
 */
export function reportRange(
  input: { from?: Date; to?: Date; interval?: string },
  now: Date,
  names: RangeNames = FLAG_NAMES,
): ReportRange {
  const interval = (input.interval ?? DEFAULT_REPORT_INTERVAL).trim();
  const intervalMs = parseInterval(interval, names.interval);
  const to = input.to ?? now;
  const from = input.from ?? new Date(to.getTime() - DEFAULT_REPORT_DAYS * 86_400_000);
  if (from.getTime() > to.getTime())
    throw new InvalidInputError(`${names.from} ${from.toISOString()} is after ${names.to} ${to.toISOString()}`);
  return { from, to, intervalMs, interval };
}

/** The times of a portfolio series: `from`, then every step up to and including `to`. */
export function portfolioSteps(range: ReportRange): number {
  const steps = Math.floor((range.to.getTime() - range.from.getTime()) / range.intervalMs) + 1;
  if (steps > MAX_PORTFOLIO_STEPS)
    throw new InvalidInputError(
      `${steps} rows is more than ${MAX_PORTFOLIO_STEPS}: use a larger --interval or a shorter range`,
    );
  return steps;
}

/** The buckets of a price report: [from, to) cut into steps starting at `from` (the last one may be shorter). */
export function priceBucketStarts(range: ReportRange): number {
  const buckets = Math.ceil((range.to.getTime() - range.from.getTime()) / range.intervalMs);
  if (buckets === 0)
    throw new InvalidInputError(
      `--from and --to are both ${range.from.toISOString()}: a price report needs a range (prices of [from, to))`,
    );
  if (buckets > MAX_PRICE_BUCKETS)
    throw new InvalidInputError(
      `${buckets} intervals per token is more than ${MAX_PRICE_BUCKETS}: use a larger --interval or a shorter range`,
    );
  return buckets;
}
