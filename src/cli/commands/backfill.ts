import { Command } from 'commander';
import { backfillTimes, CONFIRM_ABOVE_REQUESTS, parseBackfillInterval } from '../../scheduler/backfill-plan.ts';
import { confirmBackfill, runBackfill } from '../backfill-prices.ts';
import { parseTime, TIME_FORMS } from '../parse-time.ts';
import { createProgressBar } from '../progress-bar.ts';
import { openResources, openUpstreamClient } from '../resources.ts';
import { summarizeRuns } from '../run-summary.ts';
import { createCliContext } from '../runtime.ts';
import { withShutdown } from '../../runtime/shutdown.ts';

export function backfillCommand(): Command {
  const backfill = new Command('backfill').description('fill past data through the upstream');
  backfill
    .command('prices')
    .description(
      `prices at every interval step from --from to --to (both included); stored times are skipped, so a re-run resumes. The plan (requests: steps x batches of 50 tokens, and their time at UPSTREAM_RATE) is shown first; above ${CONFIRM_ABOVE_REQUESTS.toLocaleString('en-US')} requests it starts only with --yes or when confirmed at a terminal`,
    )
    .requiredOption('--from <time>', `first time: ${TIME_FORMS}`)
    .requiredOption('--to <time>', 'last time, in the same forms')
    .option('--interval <step>', 'step such as 15m, 1h, 1d (at least 1m)', '1h')
    .option('--tokens <list>', 'comma-separated coin types (default: the token watchlist)')
    .option('--yes', `start without asking, also above ${CONFIRM_ABOVE_REQUESTS.toLocaleString('en-US')} requests`)
    .action(async (flags: { from: string; to: string; interval: string; tokens?: string; yes?: boolean }) => {
      // One "now" for both ends, so that --from -7d --to now is exactly 7 days.
      const now = new Date();
      const from = parseTime('--from', flags.from, now);
      const to = parseTime('--to', flags.to, now);
      const intervalMs = parseBackfillInterval(flags.interval);
      const coinTypes = flags.tokens
        ?.split(',')
        .map((coin) => coin.trim())
        .filter(Boolean);
      const context = createCliContext();
      await withShutdown(context.logger, async (shutdown) => {
        const resources = await openResources(context, shutdown);
        const client = openUpstreamClient(context);
        shutdown.add('upstream client', () => client.close());
        const bar = createProgressBar('backfill');
        const outcome = await runBackfill(
          { context, ...resources, client },
          {
            from,
            to,
            intervalMs,
            coinTypes,
            onProgress: bar.update,
            confirm: (estimate) =>
              confirmBackfill(estimate, {
                rate: context.options.UPSTREAM_RATE,
                yes: flags.yes === true,
                input: process.stdin,
                output: process.stdout,
                signal: context.signal,
              }),
          },
        );
        bar.finish();
        const [runs] = await summarizeRuns(resources.database, ['backfill'], backfillTimes(from, to, intervalMs));
        console.log(
          `backfill: ${outcome.steps} step(s) x ${outcome.coinTypes} token(s); ${outcome.skipped} already stored, ${outcome.jobs} request(s) ${outcome.complete ? 'done' : 'NOT all done'}`,
        );
        if (runs!.failed > 0 || runs!.quarantined > 0) {
          console.error(
            `${runs!.failed} request(s) failed and ${runs!.quarantined} were quarantined: run the same command again to retry them`,
          );
        }
        process.exitCode = outcome.complete && runs!.failed === 0 ? 0 : 1;
      });
    });
  return backfill;
}
