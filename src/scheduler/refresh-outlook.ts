import type { AddressDataset } from '../datasets.ts';
import type { Database } from '../db/client.ts';
import { delayOutlook, walletsWithin } from '../refresh/outlook.ts';
import { loadRefreshState, type RefreshOptions } from './refresh-slot.ts';

/** What the quota buys the address datasets under the refresh policy (`plan`, status, /metrics). */
export interface RefreshOutlook {
  /** Whether the max ages and pinned cadences cannot all be held within the quota. */
  unheld: boolean;
  datasets: DatasetOutlook[];
}

export interface DatasetOutlook {
  dataset: AddressDataset;
  targets: number;
  /** Refreshes per hour the policy spends on it. */
  perHour: number;
  /** Whether that covers every target every slot (as a fixed cadence would). */
  everySlot: boolean;
  /** Expected delay from a change to the refresh that sees it, over all changes (refresh/outlook.ts). */
  meanDelaySeconds: number | null;
  p95DelaySeconds: number | null;
  /** Targets whose last refresh is older than their max age now. */
  overMaxAge: number;
  /** The targets nearest their max age (the oldest share of it first). */
  nearestMaxAge: { target: string; ageSeconds: number; maxAgeSeconds: number }[];
  /** Wallets of this watchlist's mix the budget follows with a 95th percentile within the delay asked (`plan --delay`). */
  walletsWithinDelay?: number;
}

export async function loadRefreshOutlook(
  database: Database,
  options: RefreshOptions,
  request: { now: Date; nearest?: number; delayMs?: number },
): Promise<RefreshOutlook> {
  const state = await loadRefreshState(database, options);
  const now = request.now.getTime();
  return {
    unheld: state.datasets.some((entry) => entry.budget.unheld),
    datasets: state.datasets.map(({ dataset, targets, budget, periodMs }) => {
      const model = { perHour: budget.perHour, periodMs };
      const delays = delayOutlook(targets, model);
      const ages = targets
        .filter((target) => target.lastTickMs !== null)
        .map((target) => ({ target: target.target, age: now - target.lastTickMs!, maxAge: target.maxAgeMs }));
      const nearest = ages
        .sort((a, b) => b.age / b.maxAge - a.age / a.maxAge)
        .slice(0, request.nearest ?? 5)
        .map(({ target, age, maxAge }) => ({
          target,
          ageSeconds: Math.round(age / 1000),
          maxAgeSeconds: Math.round(maxAge / 1000),
        }));
      return {
        dataset,
        targets: targets.length,
        perHour: budget.perHour,
        everySlot: budget.everySlot,
        meanDelaySeconds: delays.meanMs === null ? null : Math.round(delays.meanMs / 1000),
        p95DelaySeconds: delays.p95Ms === null ? null : Math.round(delays.p95Ms / 1000),
        overMaxAge: ages.filter(({ age, maxAge }) => age > maxAge).length,
        nearestMaxAge: nearest,
        ...(request.delayMs !== undefined
          ? { walletsWithinDelay: walletsWithin(targets, model, request.delayMs) }
          : {}),
      };
    }),
  };
}
