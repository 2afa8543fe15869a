import { Command } from 'commander';
import { InvalidInputError } from '../../errors.ts';
import { floorToMinute } from '../../scheduler/cron-slots.ts';
import { runCycle } from '../run-cycle.ts';
import { parseTime, TIME_FORMS } from '../parse-time.ts';
import { openResources, openUpstreamClient } from '../resources.ts';
import { formatSummary, summarizeRuns } from '../run-summary.ts';
import { createCliContext } from '../runtime.ts';
import { withShutdown } from '../../runtime/shutdown.ts';
import { DATASETS, type Dataset } from '../../datasets.ts';

export function parseTick(value: string | undefined, now = new Date()): Date {
  return floorToMinute(value === undefined ? now : parseTime('--tick', value, now));
}

export function parseDatasets(value: string): Dataset[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(DATASETS as readonly string[]).includes(name));
  if (unknown.length || names.length === 0) {
    throw new InvalidInputError(
      `invalid --datasets "${value}": expected a comma-separated list of ${DATASETS.join(', ')}`,
    );
  }
  return [...new Set(names)] as Dataset[];
}

export function runOnceCommand(): Command {
  return new Command('run-once')
    .description(
      'enqueue one full cycle for a logical time, process it in this process, print a summary; exit 0 only when no job failed',
    )
    .option('--tick <time>', `logical time of the cycle, floored to the minute (default: now): ${TIME_FORMS}`)
    .option('--datasets <list>', 'comma-separated datasets', DATASETS.join(','))
    .action(async (flags: { tick?: string; datasets: string }) => {
      const tick = parseTick(flags.tick);
      const datasets = parseDatasets(flags.datasets);
      const context = createCliContext();
      await withShutdown(context.logger, async (shutdown) => {
        const resources = await openResources(context, shutdown);
        const client = openUpstreamClient(context);
        shutdown.add('upstream client', () => client.close());
        const outcome = await runCycle({ context, ...resources, client }, { tick, datasets });
        const summary = await summarizeRuns(resources.database, datasets, [tick]);
        console.log(`cycle ${tick.toISOString()}`);
        console.log(formatSummary(summary));
        const failed = summary.some((row) => row.failed > 0 || row.pending > 0) || !outcome.complete;
        if (!outcome.complete)
          console.error('some jobs never reached an outcome (see `chaintap status` and Bull Board)');
        process.exitCode = failed ? 1 : 0;
      });
    });
}
