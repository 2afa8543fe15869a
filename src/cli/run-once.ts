import type { Dataset } from '../datasets.ts';
import { withShutdown } from '../runtime/shutdown.ts';
import { floorToMinute } from '../scheduler/cron-slots.ts';
import { openResources, openUpstreamClient } from './resources.ts';
import { runCycle } from './run-cycle.ts';
import { formatSummary, summarizeRuns } from './run-summary.ts';
import { createCliContext } from './runtime.ts';
import { EXIT } from './exit-codes.ts';

/** `chaintap run-once`: exit code 0 only when no job failed or was left without an outcome. */
export async function runOnce(request: { tick?: Date; datasets: Dataset[]; json: boolean }): Promise<void> {
  const tick = floorToMinute(request.tick ?? new Date());
  const { datasets } = request;
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
    if (!outcome.complete) console.error('some jobs never reached an outcome (see `chaintap status` and Bull Board)');
    process.exitCode = failed ? EXIT.failed : EXIT.ok;
  });
}
