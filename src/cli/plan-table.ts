import {
  describeCadence,
  describeCapacityPlan,
  describeWatchlist,
  formatPerHour,
  type CapacityPlan,
} from '../scheduler/capacity-plan.ts';
import { formatTable } from './text-table.ts';

/** The table (datasets in priority order, maintenance, total), then the plan in sentences. */
export function formatPlan(plan: CapacityPlan): string[] {
  const rows: string[][] = [
    ['dataset', 'cron', 'per slot', 'needs req/h', 'gets req/h', 'refreshes each target'],
    ...plan.datasets.map((dataset) => [
      dataset.dataset,
      dataset.cron,
      dataset.requestsPerSlot.toLocaleString('en-US'),
      formatPerHour(dataset.neededPerHour),
      formatPerHour(dataset.grantedPerHour),
      describeCadence(plan, dataset),
    ]),
    [
      'maintenance',
      plan.maintenanceCron,
      '1',
      formatPerHour(plan.maintenancePerHour),
      formatPerHour(Math.min(plan.maintenancePerHour, plan.availablePerHour)),
      'the protocol list',
    ],
    ['total', '', '', formatPerHour(plan.neededPerHour), formatPerHour(plan.availablePerHour), 'the quota allows'],
  ];
  return [
    `quota ${plan.rate.label} (UPSTREAM_RATE): ${formatPerHour(plan.availablePerHour)} req/h, served in the order ${plan.priority.join(', ')} (DATASET_PRIORITY)`,
    `watchlist: ${describeWatchlist(plan)}`,
    '',
    // Numbers right-aligned.
    ...formatTable(rows, (column) => column >= 2 && column <= 4),
    '',
    ...describeCapacityPlan(plan),
  ];
}
