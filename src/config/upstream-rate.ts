/**
 * The upstream's quota in the form services state it: `40/min`, `2/s`, `3600/h`, `10000/day` (or a
 * bare number: requests per second, as UPSTREAM_RPS took it). The pipeline paces requests evenly at
 * `rps`; `label` is how the quota is shown back (status, plan, logs).
 */
export interface UpstreamRate {
  requests: number;
  periodMs: number;
  rps: number;
  /** As written, normalised: `40/min`. */
  label: string;
}

const PERIODS = [
  { names: ['s', 'sec', 'second'], ms: 1_000, label: 's' },
  { names: ['m', 'min', 'minute'], ms: 60_000, label: 'min' },
  { names: ['h', 'hour'], ms: 3_600_000, label: 'h' },
  { names: ['d', 'day'], ms: 86_400_000, label: 'day' },
];

/** The most the pacing supports (the limiter's spacing is computed in microseconds). */
export const MAX_RPS = 100_000;

const EXAMPLES = 'for example 40/min, 2/s, 3600/h or 10000/day';

/**
 * Parses a quota; throws RangeError with an example on anything else. The message never repeats
 * the text: a value put in the wrong setting may be a secret (options.ts echoes no value either).
 * The number may be in exponent form, as String() writes the UPSTREAM_RPS alias below 1e-6.
 */
export function parseUpstreamRate(text: string): UpstreamRate {
  const match = /^\s*(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*(?:\/\s*([a-z]+))?\s*$/i.exec(text);
  const periodName = (match?.[2] ?? 's').toLowerCase();
  const period = PERIODS.find(({ names }) => names.includes(periodName));
  if (!match || !period) throw new RangeError(`must be requests per period, ${EXAMPLES}`);
  const requests = Number(match[1]);
  const rps = (requests * 1000) / period.ms;
  if (!(requests > 0)) throw new RangeError(`must allow more than zero requests, ${EXAMPLES}`);
  if (rps > MAX_RPS) throw new RangeError(`must be at most ${MAX_RPS} requests per second`);
  return { requests, periodMs: period.ms, rps, label: `${requests}/${period.label}` };
}
