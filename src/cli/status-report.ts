import { describeTopology, redisTopology } from '../config/redis-topology.ts';
import { loadDatasetFreshness, loadFailureCounts, loadRecentSchemaDrifts } from '../db/stores/status.ts';
import { listWatchedAddresses, type WatchedAddress } from '../db/stores/watchlist.ts';
import { addressFormatLabel, describeAddressWatch } from '../ops/address-watch.ts';
import { readQueueDepths } from '../ops/queue-depths.ts';
import { formatSpan } from '../runtime/time-span.ts';
import { loadQuotaStatus, loadUpstreamPause, type QuotaStatus } from '../ops/status-page-data.ts';
import { snippet } from '../upstream/errors.ts';
import type { UpstreamPause } from '../upstream/rate-limiter.ts';
import { withShutdown } from '../runtime/shutdown.ts';
import {
  describeCadence,
  describeVerdict,
  describeWatchlist,
  formatPerHour,
  howToFit,
  type CapacityPlan,
} from '../scheduler/capacity-plan.ts';
import { openResources } from './resources.ts';
import { createCliContext } from './runtime.ts';
import { EXIT } from './exit-codes.ts';

/** Watched addresses listed by `status`; `chaintap addresses list` lists them all. */
const ADDRESSES_SHOWN = 20;

/** `chaintap status`, as text or as one JSON document (README, "JSON output"). */
export async function reportStatus(request: { json: boolean }): Promise<void> {
  const context = createCliContext();
  await withShutdown(context.logger, async (shutdown) => {
    const resources = await openResources(context, shutdown);
    const now = new Date();
    const [freshness, failures, depths, drifts, quota, pause, addresses] = await Promise.all([
      loadDatasetFreshness(resources.database),
      loadFailureCounts(resources.database),
      readQueueDepths(resources.queues),
      loadRecentSchemaDrifts(resources.database),
      loadQuotaStatus(resources.database, context.options, now),
      loadUpstreamPause(resources.redis, context.options.QUEUE_PREFIX),
      listWatchedAddresses(resources.database, ADDRESSES_SHOWN),
    ]);
    // Which Redis, as an operator checks it (no credentials): one node, a cluster, or sentinels.
    const redis = describeTopology(redisTopology(context.options));
    const ageSeconds = (tick: Date | null) => (tick ? (now.getTime() - tick.getTime()) / 1000 : null);
    if (request.json) {
      const status = {
        now,
        datasets: freshness.map((row) => ({ ...row, ageSeconds: ageSeconds(row.newestTick) })),
        addresses: { count: quota.plan.addresses, listed: addresses },
        quota: { plan: quota.plan, supersededLastHour: quota.superseded, pause },
        queues: { redis, depths },
        failuresLast24h: failures,
        schemaDriftsLast24h: drifts,
      };
      console.log(JSON.stringify(status, null, 2));
    } else {
      console.log('datasets');
      for (const row of freshness) {
        const age = row.newestTick ? formatSpan(ageSeconds(row.newestTick)!) : 'never';
        console.log(
          `  ${row.dataset.padEnd(12)} last tick ${row.newestTick?.toISOString() ?? '-'} (${age} ago), ${row.targets} target(s), stalest ${row.oldestTick?.toISOString() ?? '-'}`,
        );
      }
      if (freshness.length === 0) console.log('  no successful run yet');
      for (const line of addressLines(quota.plan, addresses)) console.log(line);
      for (const line of quotaLines(quota, pause, now)) console.log(line);
      console.log(`queues (Redis: ${redis})`);
      for (const { queue, counts } of depths) {
        console.log(
          `  ${queue.padEnd(15)} waiting ${counts.waiting}, active ${counts.active}, delayed ${counts.delayed}, failed ${counts.failed}, completed ${counts.completed}`,
        );
      }
      console.log('failures in the last 24 hours');
      for (const row of failures) {
        console.log(`  ${row.dataset.padEnd(12)} failed ${row.failed}, quarantined ${row.quarantined}`);
        if (row.lastQuarantineReason)
          console.log(`  ${''.padEnd(12)} last quarantined${snippet(row.lastQuarantineReason)}`);
        if (row.authFailures > 0) {
          console.log(
            `  !! ${row.authFailures} ${row.dataset} job(s) failed on authentication: the upstream rejects UPSTREAM_API_KEY`,
          );
        }
      }
      if (failures.length === 0) console.log('  none');
      console.log('schema drifts seen in the last 24 hours (fields in another shape than documented)');
      for (const row of drifts) {
        console.log(
          `  ${row.dataset.padEnd(12)} ${row.field} as ${row.shape}: ${row.count} tick(s) from ${row.firstSeenAt.toISOString()} to ${row.lastSeenAt.toISOString()}`,
        );
      }
      if (drifts.length === 0) console.log('  none');
    }
    process.exitCode = failures.some((row) => row.authFailures > 0) ? EXIT.authRejected : EXIT.ok;
  });
}

/** The "addresses" section: how many, for what, then the first ADDRESSES_SHOWN. */
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
function quotaLines({ plan, superseded }: QuotaStatus, pause: UpstreamPause | null, now: Date): string[] {
  const supersededBy = new Map(superseded.map((row) => [row.dataset, row.superseded]));
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
  if (!plan.fits) lines.push(`  !! over budget; to fit: ${howToFit(plan)} (see \`chaintap plan\`)`);
  return lines;
}
