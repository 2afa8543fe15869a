import { Command } from 'commander';
import { InvalidInputError } from '../../errors.ts';
import { DATASETS, type Dataset } from '../../datasets.ts';
import { parseTime, TIME_FORMS } from '../../scheduler/parse-time.ts';
import { splitList } from '../input-lines.ts';

function parseDatasets(value: string): Dataset[] {
  const names = splitList(value);
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
      'enqueue one full cycle for a logical time, process it in this process, print a summary; exit 0 only when every job ran and succeeded (README: "Exit codes")',
    )
    .option(
      '--tick <time>',
      `logical time of the cycle, floored to the minute, not after now (default: now): ${TIME_FORMS}`,
    )
    .option('--datasets <list>', 'comma-separated datasets', DATASETS.join(','))
    .option('--json', 'print the summary as JSON (README: "JSON output")')
    .action(async (flags: { tick?: string; datasets: string; json?: boolean }) => {
      const now = new Date();
      const { floorToMinute } = await import('../../scheduler/cron-slots.ts');
      const tick = floorToMinute(flags.tick === undefined ? now : parseTime('--tick', flags.tick, now));
      if (tick.getTime() > now.getTime()) {
        throw new InvalidInputError(
          `invalid --tick "${flags.tick}": ${tick.toISOString()} is after now (${now.toISOString()}); a tick to come ` +
            "would supersede the scheduler's jobs of every tick before it",
        );
      }
      const datasets = parseDatasets(flags.datasets);
      const { runOnce } = await import('../run-once.ts');
      await runOnce({ tick, datasets, json: flags.json === true });
    });
}
