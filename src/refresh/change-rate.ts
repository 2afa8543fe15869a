/**
 * How often a target changes, from refreshes at irregular intervals that each saw a change or not.
 * Pure.
 *
 * Changes are a Poisson process of rate λ (Cho and Garcia-Molina, "Estimating Frequency of Change",
 * ACM TOIT 2003, and "Effective Page Refresh Policies for Web Crawlers", ACM TODS 2003): a refresh
 * t hours after the previous one sees a change with probability 1 − e^(−λt). Their estimator for
 * irregular intervals maximises the likelihood
 *   Σ_changed log(1 − e^(−λ t_i)) − λ Σ_unchanged t_j.
 * Here it is the posterior mode under a Gamma(2, PRIOR_HOURS) prior (mode 1 / PRIOR_HOURS): a target
 * with no history is expected to change every PRIOR_HOURS and is visited often until known (not
 * blind); every quiet hour lowers the estimate as 1 / (PRIOR_HOURS + quiet hours), every change raises
 * it. Observations weigh half as much every HALF_LIFE_DAYS, and a change point (a run of recent
 * refreshes that a new rate explains far better than the old, by CHANGE_POINT_NATS) drops the history
 * before it: a dormant wallet that wakes up is followed within a few refreshes (not stubborn).
 */

/** One comparison: [tick in epoch seconds, seconds since the previous refresh, 1 changed / 0 not]. */
export type Observation = [number, number, number];

export const PRIOR_HOURS = 6;
export const HALF_LIFE_DAYS = 14;
/** Observations kept per target. */
export const MAX_OBSERVATIONS = 64;
/** Recent observations a change point is looked for among, and the evidence it needs (nats). */
const CHANGE_POINT_WINDOW = 24;
const CHANGE_POINT_NATS = 6;
const CHANGE_POINT_EVERY = 8;
const MIN_RATE = 1e-6;
const MAX_RATE = 1e3;

interface Weighted {
  hours: number;
  changed: boolean;
  weight: number;
}

/** The estimate in changes per hour from `observations` (oldest first), as of `nowSeconds`. */
export function estimateChangeRate(observations: readonly Observation[], nowSeconds: number): number {
  const recent = sinceChangePoint(observations);
  const weighted = recent.map(([at, seconds, changed]) => ({
    hours: seconds / 3600,
    changed: changed === 1,
    weight: 0.5 ** (Math.max(0, nowSeconds - at) / (HALF_LIFE_DAYS * 86_400)),
  }));
  return posteriorMode(weighted);
}

/** `observations` with `next` appended, the oldest dropped beyond MAX_OBSERVATIONS. */
export function addObservation(observations: readonly Observation[], next: Observation): Observation[] {
  return [...observations, next].slice(-MAX_OBSERVATIONS);
}

/**
 * The mode of Gamma(2, PRIOR_HOURS) × likelihood: the root of
 *   Σ_changed w t e^(−λt) / (1 − e^(−λt)) + 1/λ − (Σ_unchanged w t + PRIOR_HOURS) = 0,
 * whose left side falls with λ, found by bisection on log λ.
 */
function posteriorMode(observations: readonly Weighted[]): number {
  let quiet = PRIOR_HOURS;
  for (const o of observations) if (!o.changed) quiet += o.weight * o.hours;
  const changed = observations.filter((o) => o.changed && o.hours > 0);
  const slope = (rate: number) => {
    let sum = 1 / rate - quiet;
    for (const o of changed) sum += (o.weight * o.hours) / Math.expm1(rate * o.hours);
    return sum;
  };
  let low = Math.log(MIN_RATE);
  let high = Math.log(MAX_RATE);
  for (let i = 0; i < 40; i += 1) {
    const middle = (low + high) / 2;
    if (slope(Math.exp(middle)) > 0) low = middle;
    else high = middle;
  }
  return Math.exp((low + high) / 2);
}

/** Log-likelihood of unweighted observations under `rate`. */
function logLikelihood(observations: readonly Weighted[], rate: number): number {
  let sum = 0;
  for (const o of observations) {
    const x = rate * o.hours;
    sum += o.changed ? Math.log(-Math.expm1(-x) || Number.MIN_VALUE) : -x;
  }
  return sum;
}

/**
 * The observations after the most likely change point among the recent ones, when the rates before
 * and after it explain them better than one rate by CHANGE_POINT_NATS; else all of them.
 */
function sinceChangePoint(observations: readonly Observation[]): readonly Observation[] {
  // Looked for when a change was just seen (a wake shows as changes), and at one quarter-hour tick in
  // CHANGE_POINT_EVERY (a busy target falling quiet): a search costs CHANGE_POINT_WINDOW pairs of estimates.
  const last = observations.at(-1);
  if (!last || (last[2] !== 1 && Math.floor(last[0] / 900) % CHANGE_POINT_EVERY !== 0)) return observations;
  const all = observations.map(([, seconds, changed]) => ({
    hours: seconds / 3600,
    changed: changed === 1,
    weight: 1,
  }));
  if (all.length < 2) return observations;
  const whole = logLikelihood(all, posteriorMode(all));
  let best = { gain: CHANGE_POINT_NATS, from: 0 };
  for (let from = Math.max(1, all.length - CHANGE_POINT_WINDOW); from < all.length; from += 1) {
    const before = all.slice(0, from);
    const after = all.slice(from);
    const gain = logLikelihood(before, posteriorMode(before)) + logLikelihood(after, posteriorMode(after)) - whole;
    if (gain > best.gain) best = { gain, from };
  }
  return observations.slice(best.from);
}
