import { ADDRESS_DATASETS, type AddressDataset } from '../datasets.ts';
import type { Database } from '../db/client.ts';
import { loadTargetStates } from '../db/stores/refresh-targets.ts';
import { demandOf, targetsOf } from '../refresh/lifecycle.ts';
import { refreshBudget, selectDue, type DatasetBudget, type DueTarget, type RefreshTarget } from '../refresh/policy.ts';
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

/** The quota per hour the address datasets share: what prices and maintenance leave. */
export function addressQuotaPerHour(plan: CapacityPlan): number {
  const prices = plan.datasets.find((dataset) => dataset.dataset === 'prices')?.neededPerHour ?? 0;
  return Math.max(0, plan.availablePerHour - plan.maintenancePerHour - prices);
}

export async function loadRefreshState(database: Database, options: RefreshOptions): Promise<RefreshState> {
  const plan = await loadCapacityPlan(database, options);
  const order = options.DATASET_PRIORITY.filter((dataset): dataset is AddressDataset =>
    (ADDRESS_DATASETS as readonly string[]).includes(dataset),
  );
  const loaded = await Promise.all(
    order.map(async (dataset) => {
      const slotsPerHour = cronSlotsPerHour(dataset === 'positions' ? options.POSITIONS_CRON : options.NFT_CRON);
      const targets = targetsOf(await loadTargetStates(database, dataset), options.REFRESH_MAX_AGE);
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
  options: RefreshOptions,
  dataset: AddressDataset,
  tick: Date,
): Promise<DueTarget[]> {
  const state = await loadRefreshState(database, options);
  const own = state.datasets.find((entry) => entry.dataset === dataset);
  if (!own) return [];
  return selectDue(own.targets, {
    tickMs: tick.getTime(),
    periodMs: own.periodMs,
    slotBudget: Math.ceil(own.budget.perSlot - 1e-9),
  });
}
