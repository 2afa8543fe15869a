import { ADDRESS_DATASETS, type AddressDataset } from '../datasets.ts';
import type { Database } from '../db/client.ts';
import {
  insertSeededTargets,
  loadStoredRefreshes,
  loadTargetStates,
  targetsToSeed,
} from '../db/stores/refresh-targets.ts';
import { demandOf, historyFromStoredRefreshes, targetsOf } from '../refresh/lifecycle.ts';
import {
  refreshBudget,
  selectDue,
  slotShare,
  type DatasetBudget,
  type DueTarget,
  type RefreshTarget,
} from '../refresh/policy.ts';
import { pendingTargetsKey } from '../queue/redis-keys.ts';
import type { RedisClient } from '../runtime/redis-connection.ts';
import { PACING_MARGIN } from '../upstream/rate-limiter.ts';
import { cronSlotsPerHour, loadCapacityPlan, type CapacityPlan, type CapacityPlanOptions } from './capacity-plan.ts';

export type RefreshOptions = CapacityPlanOptions & { REFRESH_MAX_AGE: number };

/** The address datasets' targets and budgets as the policy sees them now (docs/quota.md). */
export interface RefreshState {
  plan: CapacityPlan;
  datasets: {
    dataset: AddressDataset;
    targets: RefreshTarget[];
    budget: DatasetBudget;
    periodMs: number;
  }[];
}

/**
 * The requests per hour the address datasets share: what the pacer sends of the quota (its spacing
 * is PACING_MARGIN wider, rate-limiter.ts) less prices and maintenance.
 */
function addressQuotaPerHour(plan: CapacityPlan): number {
  const prices = plan.datasets.find((dataset) => dataset.dataset === 'prices')?.neededPerHour ?? 0;
  return addressRequestsPerHour(plan.availablePerHour, plan.maintenancePerHour + prices);
}

/** The same from the quota per hour and what prices and maintenance take of it (the cadence bench's model). */
export function addressRequestsPerHour(quotaPerHour: number, takenPerHour: number): number {
  return Math.max(0, quotaPerHour / (1 + PACING_MARGIN) - takenPerHour);
}

/** `priceMoves`: read the targets' price moves too (a slot's choice; what the quota buys needs none). */
export async function loadRefreshState(
  database: Database,
  options: RefreshOptions,
  { priceMoves = false } = {},
): Promise<RefreshState> {
  const plan = await loadCapacityPlan(database, options);
  const order = options.DATASET_PRIORITY.filter((dataset): dataset is AddressDataset =>
    (ADDRESS_DATASETS as readonly string[]).includes(dataset),
  );
  const loaded = await Promise.all(
    order.map(async (dataset) => {
      const slotsPerHour = cronSlotsPerHour(dataset === 'positions' ? options.POSITIONS_CRON : options.NFT_CRON);
      const states = await loadTargetStates(database, dataset, { priceMoves: priceMoves && dataset === 'positions' });
      const targets = targetsOf(states, options.REFRESH_MAX_AGE);
      return { dataset, targets, slotsPerHour, demand: demandOf(dataset, targets, slotsPerHour) };
    }),
  );
  const budgets = refreshBudget(
    addressQuotaPerHour(plan),
    loaded.map(({ demand }) => demand),
  );
  return {
    plan,
    datasets: loaded.map(({ dataset, targets, slotsPerHour }, i) => ({
      dataset,
      targets,
      budget: budgets[i]!,
      periodMs: slotsPerHour > 0 ? 3_600_000 / slotsPerHour : Number.POSITIVE_INFINITY,
    })),
  };
}

/** The targets of `dataset` a slot at `tick` refreshes, most urgent first (refresh/policy.ts). */
export async function dueTargets(
  database: Database,
  redis: RedisClient,
  options: RefreshOptions & { QUEUE_PREFIX: string },
  dataset: AddressDataset,
  tick: Date,
): Promise<DueTarget[]> {
  await seedFromStoredRefreshes(database, dataset);
  const [state, claimed] = await Promise.all([
    loadRefreshState(database, options, { priceMoves: true }),
    redis.hgetall(pendingTargetsKey(options.QUEUE_PREFIX, dataset)),
  ]);
  const own = state.datasets.find((entry) => entry.dataset === dataset);
  if (!own) return [];
  const tickMs = tick.getTime();
  // A target claimed by a job of the last two slots that has not refreshed it yet is pending: it
  // waits for its job, and the slot chooses another. Older claims (a job failed, or waiting behind
  // a long queue) no longer hold it back: a newer job replaces a waiting one.
  const pendingSince = (target: string) => Number(claimed[target]?.split('|')[0] ?? Number.NaN);
  const targets = own.targets.map((target) => {
    const since = pendingSince(target.target);
    const pending = since > (target.lastTickMs ?? Number.NEGATIVE_INFINITY) && since >= tickMs - 2 * own.periodMs;
    return pending ? { ...target, pending } : target;
  });
  const slotBudget = own.budget.everySlot
    ? Number.POSITIVE_INFINITY
    : slotShare(own.budget.perSlot, tickMs, own.periodMs);
  return selectDue(targets, { tickMs, periodMs: own.periodMs, slotBudget });
}

/** Targets seeded from their stored refreshes per slot: an upgraded installation is read over a few slots. */
const SEED_PER_SLOT = 500;

/**
 * Gives targets refreshed before the refresh policy existed (a watermark, no refresh_targets row) the
 * history their stored snapshots show (refresh/lifecycle.ts), SEED_PER_SLOT at a time; the others
 * wait with the prior estimate for the next slots.
 */
export async function seedFromStoredRefreshes(database: Database, dataset: AddressDataset): Promise<number> {
  const targets = await targetsToSeed(database, dataset, SEED_PER_SLOT);
  if (targets.length === 0) return 0;
  const refreshes = Map.groupBy(await loadStoredRefreshes(database, dataset, targets), (refresh) => refresh.target);
  const rows = [...refreshes.values()].flatMap((list) => historyFromStoredRefreshes(dataset, list) ?? []);
  return insertSeededTargets(database, rows);
}
