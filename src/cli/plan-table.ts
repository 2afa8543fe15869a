import {
  describeCadence,
  describeCapacityPlan,
  describeWatchlist,
  formatPerHour,
  type CapacityPlan,
} from '../scheduler/capacity-plan.ts';

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
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  // Text columns left-aligned, numbers right-aligned; the last column unpadded.
  const numeric = [false, false, true, true, true, false];
  const table = rows.map((row) =>
    row
      .map((cell, column) =>
        column === row.length - 1
          ? cell
          : numeric[column]
            ? cell.padStart(widths[column]!)
            : cell.padEnd(widths[column]!),
      )
      .join('  '),
  );
  return [
    `quota ${plan.rate.label} (UPSTREAM_RATE): ${formatPerHour(plan.availablePerHour)} req/h, served in the order ${plan.priority.join(', ')} (DATASET_PRIORITY)`,
    `watchlist: ${describeWatchlist(plan)}`,
    '',
    ...table,
    '',
    ...describeCapacityPlan(plan),
  ];
}
