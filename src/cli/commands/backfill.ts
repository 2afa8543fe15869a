import { Command } from 'commander';
import { CONFIRM_ABOVE_REQUESTS, parseBackfillInterval } from '../../scheduler/backfill-plan.ts';
import { parseTime, TIME_FORMS } from '../../scheduler/parse-time.ts';
import { splitList } from '../input-lines.ts';
import { groupThousands } from '../../runtime/number-text.ts';

const CONFIRM_ABOVE = groupThousands(String(CONFIRM_ABOVE_REQUESTS));

export function backfillCommand(): Command {
  const backfill = new Command('backfill').description('fill past data through the upstream');
  backfill
    .command('prices')
    .description(
      `prices at every interval step from --from to --to (both included); stored times are skipped, so a re-run resumes. The plan (requests: steps x batches of 50 tokens, and their time at UPSTREAM_RATE) is shown first; above ${CONFIRM_ABOVE} requests it starts only with --yes or when confirmed at a terminal`,
    )
    .requiredOption('--from <time>', `first time: ${TIME_FORMS}`)
    .requiredOption('--to <time>', 'last time, in the same forms')
    .option('--interval <step>', 'step such as 15m, 1h, 1d (at least 1m)', '1h')
    .option('--tokens <list>', 'comma-separated coin types (default: the token watchlist)')
    .option('--yes', `start without asking, also above ${CONFIRM_ABOVE} requests`)
    .option('--json', 'print the outcome as JSON (README: "JSON output"); the plan goes to stderr')
    .action(
      async (flags: { from: string; to: string; interval: string; tokens?: string; yes?: boolean; json?: boolean }) => {
        // One "now" for both ends, so that --from -7d --to now is exactly 7 days.
        const now = new Date();
        const from = parseTime('--from', flags.from, now);
        const to = parseTime('--to', flags.to, now);
        const intervalMs = parseBackfillInterval(flags.interval);
        const coinTypes = flags.tokens === undefined ? undefined : splitList(flags.tokens);
        const { backfillPrices } = await import('../backfill-prices.ts');
        await backfillPrices({ from, to, intervalMs, coinTypes, yes: flags.yes === true, json: flags.json === true });
      },
    );
  return backfill;
}
