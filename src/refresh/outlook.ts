import type { RefreshTarget } from './policy.ts';

/**
 * What a refresh budget buys (`chaintap plan`, the status page): the expected delay from a change to
 * the refresh that sees it. Pure model of policy.ts: each target refreshed at an interval T that
 * falls with the square root of its rate (T = c/√λ, from one slot to its max age, a pinned target at
 * its cadence), c such that the intervals spend the budget; a Poisson change waits U(0, T). Changes
 * are weighed by their rates, so the figures are over all changes, as `npm run bench -- cadence`
 * measures them; the bench also counts the wait within a slot, which this model leaves out.
 */

export interface DelayOutlook {
  /** Mean and 95th percentile of the delay over all expected changes (ms); null without targets. */
  meanMs: number | null;
  p95Ms: number | null;
  /** Each target's interval (ms), in the order given. */
  intervalsMs: number[];
}

export function delayOutlook(
  targets: readonly RefreshTarget[],
  budget: { perHour: number; periodMs: number },
  copies = 1,
): DelayOutlook {
  const intervalsMs = intervals(targets, budget, copies);
  if (targets.length === 0) return { meanMs: null, p95Ms: null, intervalsMs };
  const total = targets.reduce((sum, target) => sum + target.ratePerHour, 0);
  if (total <= 0) return { meanMs: 0, p95Ms: 0, intervalsMs };
  const meanMs = targets.reduce((sum, target, i) => sum + (target.ratePerHour * intervalsMs[i]!) / 2, 0) / total;
  // The share of changes seen within x: Σ λ·min(1, x/T) / Σ λ, rising in x.
  const within = (x: number) =>
    targets.reduce((sum, target, i) => sum + target.ratePerHour * Math.min(1, x / intervalsMs[i]!), 0) / total;
  let low = 0;
  let high = Math.max(...intervalsMs);
  for (let i = 0; i < 50; i += 1) {
    const middle = (low + high) / 2;
    if (within(middle) < 0.95) low = middle;
    else high = middle;
  }
  return { meanMs, p95Ms: high, intervalsMs };
}

/** The intervals spending `perHour` (each target counted `copies` times), by bisection on c. */
function intervals(targets: readonly RefreshTarget[], budget: { perHour: number; periodMs: number }, copies: number) {
  const { periodMs } = budget;
  const longest = (target: RefreshTarget) => Math.max(periodMs, target.maxAgeMs - 2 * periodMs);
  const at = (c: number) =>
    targets.map((target) =>
      target.everyMs !== null
        ? Math.max(periodMs, target.everyMs)
        : Math.min(longest(target), Math.max(periodMs, c / Math.sqrt(Math.max(target.ratePerHour, 1e-9)))),
    );
  const spent = (c: number) => copies * at(c).reduce((sum, interval) => sum + 3_600_000 / interval, 0);
  if (spent(0) <= budget.perHour) return at(0);
  let low = 0;
  let high = 1e15;
  for (let i = 0; i < 100; i += 1) {
    const middle = (low + high) / 2;
    if (spent(middle) > budget.perHour) low = middle;
    else high = middle;
  }
  return at(high);
}

/**
 * How many wallets of this watchlist's mix the budget follows with a 95th-percentile delay within
 * `delayMs`: the watchlist scaled up or down (its rates, max ages and pins as they are).
 */
export function walletsWithin(
  targets: readonly RefreshTarget[],
  budget: { perHour: number; periodMs: number },
  delayMs: number,
): number {
  if (targets.length === 0) return 0;
  const fits = (copies: number) => (delayOutlook(targets, budget, copies).p95Ms ?? 0) <= delayMs;
  if (!fits(1 / targets.length)) return 0;
  let low = 1 / targets.length;
  let high = 1;
  while (fits(high) && high < 1e6) {
    low = high;
    high *= 2;
  }
  for (let i = 0; i < 30; i += 1) {
    const middle = (low + high) / 2;
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return Math.floor(low * targets.length);
}
