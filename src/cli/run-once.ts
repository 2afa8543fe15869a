import type { Dataset } from '../datasets.ts';
import { withShutdown } from '../runtime/shutdown.ts';
import { openResources, openUpstreamClient } from './resources.ts';
import { runCycle } from './run-cycle.ts';
import { formatSummary, summarizeRuns } from './run-summary.ts';
import { createCliContext } from './runtime.ts';
import { EXIT } from './exit-codes.ts';

/**
 * `chaintap run-once`: exit 0 only when every job of the cycle ran and succeeded; 1 when one failed or
 * was left without an outcome; 4 when none failed but some were superseded, not run, because their
 * targets already had a job of a newer tick (a past --tick after the scheduler's).
 */
export async function runOnce(request: { tick: Date; datasets: Dataset[]; json: boolean }): Promise<void> {
  const { tick, datasets } = request;
  const context = createCliContext();
  await withShutdown(context.logger, async (shutdown) => {
    const resources = await openResources(context, shutdown);
    const client = openUpstreamClient(context, shutdown);
    const outcome = await runCycle({ context, ...resources, client }, { tick, datasets });
    const summary = await summarizeRuns(resources.database, datasets, [tick]);
    if (request.json) {
      console.log(JSON.stringify({ tick: tick.toISOString(), complete: outcome.complete, datasets: summary }, null, 2));
    } else {
      console.log(`cycle ${tick.toISOString()}`);
      console.log(formatSummary(summary));
    }
    const failed = summary.some((row) => row.failed > 0 || row.pending > 0) || !outcome.complete;
    const superseded = summary.reduce((sum, row) => sum + row.superseded, 0);
    if (!outcome.complete) console.error('some jobs never reached an outcome (see `chaintap status` and Bull Board)');
    if (superseded > 0) {
      console.error(
        `${superseded} job(s) did not run: superseded, their targets already have a job of a newer tick ` +
          '(a past --tick runs only the targets that have none)',
      );
    }
    process.exitCode = failed ? EXIT.failed : superseded > 0 ? EXIT.superseded : EXIT.ok;
  });
}
