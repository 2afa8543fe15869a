import { Command } from 'commander';
import type { Sql } from '../../db/client.js';
import { readQueueDepths } from '../../ops/queue-depths.js';
import { loadDatasetFreshness } from '../../ops/status-queries.js';
import { formatAge } from '../../ops/status-page.js';
import { openResources } from '../resources.js';
import { createCliContext } from '../runtime.js';

interface FailureCount {
  dataset: string;
  failed: number;
  quarantined: number;
  authFailures: number;
}

/** Failed and quarantined runs of the last 24 hours, with auth failures counted apart. */
function loadFailureCounts(sql: Sql): Promise<FailureCount[]> {
  return sql<FailureCount[]>`
    select dataset,
           count(*) filter (where status = 'failed')::int as failed,
           count(*) filter (where status = 'quarantined')::int as quarantined,
           count(*) filter (where status = 'failed' and (http_status in (401, 403) or error like 'AuthError%'))::int as "authFailures"
    from ingestion_runs
    where coalesce(finished_at, started_at) > now() - interval '24 hours'
      and status in ('failed', 'quarantined')
    group by dataset
    order by dataset`;
}

export function statusCommand(): Command {
  return new Command('status')
    .description('per dataset: last successful tick and its age; queue depths; failures in the last 24 hours')
    .action(async () => {
      const context = createCliContext();
      const resources = await openResources(context);
      try {
        const [freshness, failures, depths] = await Promise.all([
          loadDatasetFreshness(resources.database.sql),
          loadFailureCounts(resources.database.sql),
          readQueueDepths(resources.queues),
        ]);
        const now = Date.now();
        console.log('datasets');
        for (const row of freshness) {
          const age = row.newestTick ? formatAge((now - row.newestTick.getTime()) / 1000) : 'never';
          console.log(`  ${row.dataset.padEnd(12)} last tick ${row.newestTick?.toISOString() ?? '-'} (${age} ago), ${row.targets} target(s), stalest ${row.oldestTick?.toISOString() ?? '-'}`);
        }
        if (freshness.length === 0) console.log('  no successful run yet');
        console.log('queues');
        for (const { queue, counts } of depths) {
          console.log(`  ${queue.padEnd(12)} waiting ${counts.waiting}, active ${counts.active}, delayed ${counts.delayed}, failed ${counts.failed}, completed ${counts.completed}`);
        }
        console.log('failures in the last 24 hours');
        for (const row of failures) {
          console.log(`  ${row.dataset.padEnd(12)} failed ${row.failed}, quarantined ${row.quarantined}`);
          if (row.authFailures > 0) {
            console.log(`  !! ${row.authFailures} ${row.dataset} job(s) failed on authentication: the upstream rejects UPSTREAM_API_KEY`);
          }
        }
        if (failures.length === 0) console.log('  none');
        process.exitCode = failures.some((row) => row.authFailures > 0) ? 2 : 0;
      } finally {
        await resources.close();
      }
    });
}
