import {
  describeCadence,
  describeCapacityPlan,
  describeWatchlist,
  formatMinutes,
  formatPerHour,
  type CapacityPlan,
} from '../scheduler/capacity-plan.ts';
import type { RefreshOutlook } from '../scheduler/refresh-outlook.ts';
import { formatTable } from './text-table.ts';

/**
 * The table (datasets in priority order, maintenance, total), the plan in sentences, then what
 * refreshing by change rate gives the address datasets.
 */
export function formatPlan(plan: CapacityPlan, refresh: RefreshOutlook, delayMs: number): string[] {
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
    '',
    ...describeRefresh(refresh, delayMs),
  ];
}

/** "positions: 2,000 addresses, 2,150 req/h: a change is seen after 6.2 min on average, 95 % within 24 min; …" */
export function describeRefresh(refresh: RefreshOutlook, delayMs: number): string[] {
  const lines = ['refresh by change rate (docs/quota.md):'];
  for (const dataset of refresh.datasets) {
    if (dataset.targets === 0) {
      lines.push(`  ${dataset.dataset}: no address watched`);
      continue;
    }
    const spend = dataset.everySlot
      ? 'every address every slot'
      : `${formatPerHour(dataset.perHour)} req/h, where changes are expected`;
    const delay =
      dataset.meanDelaySeconds === null
        ? ''
        : `: a change is seen after ${formatMinutes(dataset.meanDelaySeconds / 60)} on average, 95 % within ${formatMinutes(dataset.p95DelaySeconds! / 60)}`;
    const fit =
      dataset.walletsWithinDelay === undefined
        ? ''
        : `; ${dataset.walletsWithinDelay.toLocaleString('en-US')} addresses of this mix fit a 95th percentile of ${formatMinutes(delayMs / 60_000)}`;
    lines.push(`  ${dataset.dataset}: ${dataset.targets.toLocaleString('en-US')} addresses, ${spend}${delay}${fit}`);
  }
  lines.push(
    refresh.unheld
      ? '  !! the quota cannot refresh every address within its max age: raise the quota or the max ages (REFRESH_MAX_AGE, addresses add --max-age), or watch fewer addresses'
      : '  every address is refreshed within its max age',
  );
  return lines;
}
