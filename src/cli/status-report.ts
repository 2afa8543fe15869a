import type { WatchedAddress } from '../db/stores/watchlist.ts';
import { addressFormatLabel, describeAddressWatch } from '../ops/address-watch.ts';
import { loadStatusDocument, type StatusDocument } from '../ops/status-document.ts';
import { quotaOverBudget } from '../ops/status-page-data.ts';
import { formatSpan } from '../runtime/time-span.ts';
import { snippet } from '../upstream/errors.ts';
import { withShutdown } from '../runtime/shutdown.ts';
import {
  describeCadence,
  describeVerdict,
  describeWatchlist,
  formatMinutes,
  formatPerHour,
  howToFit,
  type CapacityPlan,
} from '../scheduler/capacity-plan.ts';
import { openResources } from './resources.ts';
import { createCliContext } from './runtime.ts';
import { EXIT } from './exit-codes.ts';

/** `chaintap status`, as text or as one JSON document (README, "JSON output"). */
export async function reportStatus(request: { json: boolean }): Promise<void> {
  const context = createCliContext();
  await withShutdown(context.logger, async (shutdown) => {
    const { database, queues, redis } = await openResources(context, shutdown);
    const status = await loadStatusDocument({ database, queues, redis, options: context.options, now: new Date() });
    if (request.json) console.log(JSON.stringify(status, null, 2));
    else for (const line of statusLines(status)) console.log(line);
    process.exitCode = status.failuresLast24h.some((row) => row.authFailures > 0) ? EXIT.authRejected : EXIT.ok;
  });
}

/** The text of `chaintap status`, section by section. */
function statusLines(status: StatusDocument): string[] {
  const lines = ['datasets'];
  for (const row of status.datasets) {
    const age = row.ageSeconds === null ? 'never' : formatSpan(row.ageSeconds);
    lines.push(
      `  ${row.dataset.padEnd(12)} last tick ${row.newestTick?.toISOString() ?? '-'} (${age} ago), ${row.targets} target(s), stalest ${row.oldestTick?.toISOString() ?? '-'}`,
    );
  }
  if (status.datasets.length === 0) lines.push('  no successful run yet');
  lines.push(...addressLines(status.quota.plan, status.addresses.listed));
  lines.push(...quotaLines(status.quota, status.now));
  lines.push(`queues (Redis: ${status.queues.redis})`);
  for (const { queue, counts } of status.queues.depths) {
    lines.push(
      `  ${queue.padEnd(15)} waiting ${counts.waiting}, active ${counts.active}, delayed ${counts.delayed}, failed ${counts.failed}, completed ${counts.completed}`,
    );
  }
  lines.push('failures in the last 24 hours');
  for (const row of status.failuresLast24h) {
    lines.push(`  ${row.dataset.padEnd(12)} failed ${row.failed}, quarantined ${row.quarantined}`);
    if (row.lastQuarantineReason) lines.push(`  ${''.padEnd(12)} last quarantined${snippet(row.lastQuarantineReason)}`);
    if (row.authFailures > 0) {
      lines.push(
        `  !! ${row.authFailures} ${row.dataset} job(s) failed on authentication: the upstream rejects UPSTREAM_API_KEY`,
      );
    }
  }
  if (status.failuresLast24h.length === 0) lines.push('  none');
  lines.push('schema drifts seen in the last 24 hours (fields in another shape than documented)');
  for (const row of status.schemaDriftsLast24h) {
    lines.push(
      `  ${row.dataset.padEnd(12)} ${row.field} as ${row.shape}: ${row.count} tick(s) from ${row.firstSeenAt.toISOString()} to ${row.lastSeenAt.toISOString()}`,
    );
  }
  if (status.schemaDriftsLast24h.length === 0) lines.push('  none');
  return lines;
}

/** The "addresses" section: how many, for what, then the first few (the status lists 20). */
function addressLines(plan: CapacityPlan, addresses: WatchedAddress[]): string[] {
  const lines = [`addresses: ${describeWatchlist(plan)}`];
  for (const watched of addresses) {
    lines.push(`  ${watched.address}  ${addressFormatLabel(watched.address)}: ${describeAddressWatch(watched)}`);
  }
  const more = plan.addresses - addresses.length;
  if (more > 0) lines.push(`  and ${more} more (chaintap addresses list)`);
  return lines;
}

/** The "quota" section: a pause in force, needed against available, the verdict, each cadence. */
function quotaLines(
  { plan, supersededLastHour, pause, refresh, changesLast24h }: StatusDocument['quota'],
  now: Date,
): string[] {
  const supersededBy = new Map(supersededLastHour.map((row) => [row.dataset, row.superseded]));
  const lines = ['quota'];
  if (pause) {
    const left = formatSpan((pause.until.getTime() - now.getTime()) / 1000);
    lines.push(`  !! upstream requests paused until ${pause.until.toISOString()} (${left} from now): ${pause.reason}`);
  }
  lines.push(
    `  ${plan.rate.label} (UPSTREAM_RATE) allows ${formatPerHour(plan.availablePerHour)} req/h; the watchlist needs ${formatPerHour(plan.neededPerHour)} req/h: ${describeVerdict(plan)}`,
  );
  for (const dataset of plan.datasets) {
    lines.push(
      `  ${dataset.dataset.padEnd(12)} needs ${formatPerHour(dataset.neededPerHour)} req/h, gets ${formatPerHour(dataset.grantedPerHour)}: ${describeCadence(plan, dataset)}; ${supersededBy.get(dataset.dataset) ?? 0} job(s) superseded in the last hour`,
    );
  }
  const seen = new Map(changesLast24h.map((row) => [row.dataset, row]));
  for (const dataset of refresh.datasets) {
    if (dataset.targets === 0) continue;
    const changes = seen.get(dataset.dataset);
    const over = dataset.overMaxAge > 0 ? `; !! ${dataset.overMaxAge} older than their max age` : '';
    lines.push(
      `  refresh ${dataset.dataset}: ${dataset.everySlot ? 'every address every slot' : `${formatPerHour(dataset.perHour)} req/h by change rate`}; expected delay ${formatMinutes(dataset.meanDelaySeconds === null ? null : dataset.meanDelaySeconds / 60)} on average; ${changes?.changes ?? 0} change(s) seen in the last 24 h${over}`,
    );
  }
  if (quotaOverBudget({ plan, refresh }))
    lines.push(
      `  !! over budget; to fit: ${howToFit(plan)} (see \`chaintap plan\`)${refresh.unheld ? '; refreshing by change rate cannot hold every address within its max age' : ''}`,
    );
  return lines;
}
