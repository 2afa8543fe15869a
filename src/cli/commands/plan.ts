import { Command } from 'commander';
import {
  describeCadence,
  describeCapacityPlan,
  describeWatchlist,
  formatPerHour,
  loadCapacityPlan,
  type CapacityPlan,
} from '../../scheduler/capacity-plan.ts';
import { withDatabase } from './database-command.ts';

/** Exit code of a watchlist that does not fit the quota (1 is an error, 2 a rejected API key). */
export const EXIT_OVER_BUDGET = 3;

export function planCommand(): Command {
  return new Command('plan')
    .description(
      'from the watchlist, the crons and the quota (UPSTREAM_RATE): the requests per hour each dataset needs, what the quota leaves it and how often it can really refresh a target; exit 0 when it fits, 3 when it does not',
    )
    .option('--json', 'print the plan as JSON (a cadence of null means never)')
    .action(async (flags: { json?: boolean }) => {
      const plan = await withDatabase((database, context) => loadCapacityPlan(database, context.options));
      console.log(flags.json ? JSON.stringify(plan, null, 2) : formatPlan(plan).join('\n'));
      process.exitCode = plan.fits ? 0 : EXIT_OVER_BUDGET;
    });
}

/** The table (datasets in priority order, maintenance, total), then the plan in sentences. */
function formatPlan(plan: CapacityPlan): string[] {
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
