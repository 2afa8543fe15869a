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
 * it. The history is kept as the likelihood's sufficient statistics (Evidence: the quiet hours, and the
 * changed refreshes by their interval in half-octave bins), each weighing half as much every
 * HALF_LIFE_DAYS, so that months of refreshes cost a few numbers. The last refreshes are kept
 * as they were: a change point among them (a run that a new rate explains better than the long-run
 * estimate by CHANGE_POINT_NATS) replaces the evidence with that run, so a dormant wallet that wakes up
 * is followed within a few refreshes (not stubborn).
 */

/** One comparison: [tick in epoch seconds, seconds since the previous refresh, 1 changed / 0 not]. */
export type Observation = [number, number, number];

/** The history's sufficient statistics, weights as of `at` (epoch seconds). */
export interface Evidence {
  at: number;
  quietHours: number;
  /** [bin index, weight]: changed refreshes whose interval was about 2^(index / 2) hours. */
  changed: [number, number][];
}

export const NO_EVIDENCE: Evidence = { at: 0, quietHours: 0, changed: [] };
const PRIOR_HOURS = 6;
const HALF_LIFE_DAYS = 14;
/**
 * Refreshes kept as they were: a day of the fastest default cadence (96 slots of 15 minutes), which
 * the status counts the last day's changes from; the change point is looked for among the last
 * CHANGE_POINT_WINDOW of them.
 */
export const RECENT = 96;
const CHANGE_POINT_WINDOW = 24;
const CHANGE_POINT_NATS = 6;
const CHANGE_POINT_EVERY = 8;
const MIN_RATE = 1e-6;
const MAX_RATE = 1e3;

/** A target's history after one more refresh: its evidence and its recent refreshes. */
export interface History {
  evidence: Evidence;
  recent: Observation[];
}

export function observe(history: History, observation: Observation): History {
  const recent = [...history.recent, observation].slice(-RECENT);
  const evidence = addToEvidence(decayed(history.evidence, observation[0]), observation);
  const from = changePoint(evidence, recent);
  if (from === undefined) return { evidence, recent };
  // The run after the change point is the whole history from now on.
  const run = recent.slice(from);
  return {
    evidence: run.reduce((sum, next) => addToEvidence(sum, next), { ...NO_EVIDENCE, at: observation[0] }),
    recent: run,
  };
}

/** The estimate in changes per hour. */
export function estimateChangeRate(evidence: Evidence): number {
  return posteriorMode(
    evidence.quietHours,
    evidence.changed.map(([bin, weight]) => [binHours(bin), weight]),
  );
}

function binOf(hours: number): number {
  return Math.round(2 * Math.log2(Math.max(hours, 1 / 3600)));
}

function binHours(bin: number): number {
  return 2 ** (bin / 2);
}

function decayed(evidence: Evidence, at: number): Evidence {
  if (at <= evidence.at) return evidence;
  const factor = 0.5 ** ((at - evidence.at) / (HALF_LIFE_DAYS * 86_400));
  return {
    at,
    quietHours: evidence.quietHours * factor,
    changed: evidence.changed.map(([bin, weight]) => [bin, weight * factor]),
  };
}

function addToEvidence(evidence: Evidence, [, seconds, changed]: Observation): Evidence {
  const hours = seconds / 3600;
  if (changed !== 1) return { ...evidence, quietHours: evidence.quietHours + hours };
  const bin = binOf(hours);
  const found = evidence.changed.some(([other]) => other === bin);
  return {
    ...evidence,
    changed: found
      ? evidence.changed.map(([other, weight]) => [other, other === bin ? weight + 1 : weight])
      : [...evidence.changed, [bin, 1]],
  };
}

/**
 * The mode of Gamma(2, PRIOR_HOURS) × likelihood: the root of
 *   Σ_changed w t / (e^(λt) − 1) + 1/λ − (quiet hours + PRIOR_HOURS) = 0,
 * whose left side falls with λ, found by bisection on log λ.
 */
function posteriorMode(quietHours: number, changed: [number, number][]): number {
  const quiet = PRIOR_HOURS + quietHours;
  const slope = (rate: number) => {
    let sum = 1 / rate - quiet;
    for (const [hours, weight] of changed) sum += (weight * hours) / Math.expm1(rate * hours);
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

/** Log-likelihood of observations under `rate`. */
function logLikelihood(observations: readonly Observation[], rate: number): number {
  let sum = 0;
  for (const [, seconds, changed] of observations) {
    const x = (rate * seconds) / 3600;
    sum += changed === 1 ? Math.log(-Math.expm1(-x) || Number.MIN_VALUE) : -x;
  }
  return sum;
}

/** The estimate from a run of observations alone (with the prior). */
function runRate(run: readonly Observation[]): number {
  let quiet = 0;
  const changed: [number, number][] = [];
  for (const [, seconds, change] of run) {
    if (change === 1) changed.push([seconds / 3600, 1]);
    else quiet += seconds / 3600;
  }
  return posteriorMode(quiet, changed);
}

/**
 * Where, among the recent refreshes, a run starts that its own rate explains better than the
 * long-run estimate by CHANGE_POINT_NATS (the largest such gain); undefined when none does. Looked
 * for when a change was just seen (a wake shows as changes) and at one quarter-hour tick in
 * CHANGE_POINT_EVERY (a busy target falling quiet).
 */
function changePoint(evidence: Evidence, recent: readonly Observation[]): number | undefined {
  const last = recent.at(-1);
  if (!last || (last[2] !== 1 && Math.floor(last[0] / 900) % CHANGE_POINT_EVERY !== 0)) return undefined;
  const longRun = estimateChangeRate(evidence);
  let best: { gain: number; from: number } | undefined;
  for (let from = Math.max(0, recent.length - CHANGE_POINT_WINDOW); from < recent.length; from += 1) {
    const run = recent.slice(from);
    const gain = logLikelihood(run, runRate(run)) - logLikelihood(run, longRun);
    if (gain > CHANGE_POINT_NATS && (!best || gain > best.gain)) best = { gain, from };
  }
  return best?.from;
}
