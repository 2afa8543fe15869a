/**
 * How often a target changes, from refreshes at irregular intervals that each saw some changes or
 * none. Pure.
 *
 * Changes are a Poisson process of rate λ (Cho and Garcia-Molina, "Estimating Frequency of Change",
 * ACM TOIT 2003, and "Effective Page Refresh Policies for Web Crawlers", ACM TODS 2003): a refresh
 * t hours after the previous one sees a change with probability 1 − e^(−λt). Their estimator for
 * irregular intervals maximises the likelihood
 *   Σ_changed log(1 − e^(−λ t_i)) − λ Σ_unchanged t_j.
 * A refresh also tells how many changes it saw at least (substance.ts's count, at most MAX_COUNT): k
 * changes in t hours have probability P(N ≥ k) for N ~ Poisson(λt), of which 1 − e^(−λt) is the k = 1
 * case. A wallet whose changes come in bursts (five in an hour, then days of quiet) shows five at
 * once; counted as one, its rate would be taken for a fifth of what it is.
 * Here it is the posterior mode under a Gamma(PRIOR_SHAPE, PRIOR_HOURS) prior: a target with no
 * history is expected to change every 6 hours and is visited often until known (not blind); every
 * quiet hour lowers the estimate, every change raises it. The history is kept as the likelihood's sufficient statistics (Evidence: the quiet hours, and the
 * changed refreshes by their interval in half-octave bins and their count), each weighing half as much every
 * HALF_LIFE_DAYS, so that months of refreshes cost a few numbers. The last refreshes are kept
 * as they were: a change point among them (a run that a new rate explains better than the long-run
 * estimate by CHANGE_POINT_NATS) replaces the evidence with that run, so a dormant wallet that wakes up
 * is followed within a few refreshes (not stubborn).
 */

/** One comparison: [tick in epoch seconds, seconds since the previous refresh, changes seen (0: none)]. */
export type Observation = [number, number, number];

/** Changes one refresh counts at most: a wallet rearranged whole is a burst, not a rate of its own. */
export const MAX_COUNT = 8;

/** The history's sufficient statistics, weights as of `at` (epoch seconds). */
export interface Evidence {
  at: number;
  quietHours: number;
  /**
   * [bin index, weight, count]: changed refreshes whose interval was about 2^(index / 2) hours and
   * that saw `count` changes (an entry of two numbers, written before counts were kept, saw one).
   */
  changed: ([number, number] | [number, number, number])[];
}

export const NO_EVIDENCE: Evidence = { at: 0, quietHours: 0, changed: [] };
/**
 * The prior Gamma(PRIOR_SHAPE, PRIOR_HOURS): its mode, (PRIOR_SHAPE − 1) / PRIOR_HOURS, is one change
 * in 6 hours; a shape near 1 weighs a quarter of a change, so that quiet hours bring a dormant
 * target's estimate down as 0.25 / (1.5 + quiet hours) instead of holding it at one change in the
 * time watched (cadence bench: 10.1 → 9.8 minutes, docs/benchmarks.md).
 */
const PRIOR_SHAPE = 1.25;
const PRIOR_HOURS = 1.5;
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
    evidence.changed.map(([bin, weight, count]) => [binHours(bin), weight, count ?? 1]),
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
    changed: evidence.changed.map(([bin, weight, count]) => [bin, weight * factor, count ?? 1]),
  };
}

function addToEvidence(evidence: Evidence, [, seconds, seen]: Observation): Evidence {
  const hours = seconds / 3600;
  const count = countOf(seen);
  if (count === 0) return { ...evidence, quietHours: evidence.quietHours + hours };
  const bin = binOf(hours);
  const same = ([otherBin, , otherCount]: Evidence['changed'][number]) =>
    otherBin === bin && (otherCount ?? 1) === count;
  return {
    ...evidence,
    changed: evidence.changed.some(same)
      ? evidence.changed.map((entry) =>
          same(entry) ? [entry[0], entry[1] + 1, count] : [entry[0], entry[1], entry[2] ?? 1],
        )
      : [...evidence.changed, [bin, 1, count]],
  };
}

/** An observation's count of changes, whole and within 0..MAX_COUNT. */
function countOf(seen: number): number {
  return Math.min(MAX_COUNT, Math.max(0, Math.round(seen)));
}

/**
 * For N ~ Poisson(x) and k ≥ 1: log P(N ≥ k), and the ratio P(N = k − 1) / P(N ≥ k), which is the
 * derivative of log P(N ≥ k) in x (for k = 1: 1 / (e^x − 1)). Below x = k + 1 from the series
 * P(N ≥ k) / P(N = k − 1) = Σ_m x^(m+1) (k−1)! / (k+m)! (no cancellation); above, from 1 − P(N < k).
 */
function poissonTail(k: number, x: number): { logTail: number; ratio: number } {
  let logFactorial = 0;
  for (let j = 2; j < k; j += 1) logFactorial += Math.log(j);
  const logBelowTop = -x + (k - 1) * Math.log(x) - logFactorial;
  if (x < k + 1) {
    let term = x / k;
    let series = term;
    for (let m = 1; m < 200 && term > series * 1e-17; m += 1) {
      term *= x / (k + m);
      series += term;
    }
    return { logTail: logBelowTop + Math.log(series), ratio: 1 / series };
  }
  let below = 0;
  let term = Math.exp(-x);
  for (let j = 0; j < k; j += 1) {
    below += term;
    term *= x / (j + 1);
  }
  return { logTail: Math.log1p(-below), ratio: Math.exp(logBelowTop) / (1 - below) };
}

/**
 * The mode of Gamma(PRIOR_SHAPE, PRIOR_HOURS) × likelihood: the root of
 *   Σ_changed w t P(N = k − 1) / P(N ≥ k) + (PRIOR_SHAPE − 1)/λ − (quiet hours + PRIOR_HOURS) = 0
 * (N ~ Poisson(λt)),
 * whose left side falls with λ, found by bisection on log λ.
 */
function posteriorMode(quietHours: number, changed: [number, number, number][]): number {
  const quiet = PRIOR_HOURS + quietHours;
  const slope = (rate: number) => {
    let sum = (PRIOR_SHAPE - 1) / rate - quiet;
    for (const [hours, weight, count] of changed)
      sum += weight * hours * (count === 1 ? 1 / Math.expm1(rate * hours) : poissonTail(count, rate * hours).ratio);
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
  for (const [, seconds, seen] of observations) {
    const x = (rate * seconds) / 3600;
    const count = countOf(seen);
    sum += count === 0 ? -x : Math.max(poissonTail(count, x).logTail, -1e300);
  }
  return sum;
}

/** The estimate from a run of observations alone (with the prior). */
function runRate(run: readonly Observation[]): number {
  let quiet = 0;
  const changed: [number, number, number][] = [];
  for (const [, seconds, seen] of run) {
    const count = countOf(seen);
    if (count > 0) changed.push([seconds / 3600, 1, count]);
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
  if (!last || (countOf(last[2]) === 0 && Math.floor(last[0] / 900) % CHANGE_POINT_EVERY !== 0)) return undefined;
  const longRun = estimateChangeRate(evidence);
  let best: { gain: number; from: number } | undefined;
  for (let from = Math.max(0, recent.length - CHANGE_POINT_WINDOW); from < recent.length; from += 1) {
    const run = recent.slice(from);
    const gain = logLikelihood(run, runRate(run)) - logLikelihood(run, longRun);
    if (gain > CHANGE_POINT_NATS && (!best || gain > best.gain)) best = { gain, from };
  }
  return best?.from;
}
