import { Command } from 'commander';
import { InvalidInputError } from '../../errors.ts';
import { EXIT } from '../exit-codes.ts';

export function planCommand(): Command {
  return new Command('plan')
    .description(
      'from the watchlist, the crons and the quota (UPSTREAM_RATE): the requests per hour each dataset needs, what the quota leaves it, and, where it cannot refresh every address every slot, the delay from a change to its detection that refreshing by change rate gives; exit 0 when every address can be held within its max age, 3 when not',
    )
    .option('--json', 'print the plan as JSON (a cadence of null means never)')
    .option(
      '--delay <duration>',
      'say how many wallets of this mix fit a 95th-percentile detection delay of this',
      '30m',
    )
    .action(async (flags: { json?: boolean; delay: string }) => {
      const [{ withDatabase }, { loadCapacityPlan }, { loadRefreshOutlook }, { formatPlan }, { parseDuration }] =
        await Promise.all([
          import('./database-command.ts'),
          import('../../scheduler/capacity-plan.ts'),
          import('../../scheduler/refresh-outlook.ts'),
          import('../plan-table.ts'),
          import('../../config/duration.ts'),
        ]);
      const delayMs = parseDuration(flags.delay);
      if (delayMs === undefined)
        throw new InvalidInputError(`invalid --delay "${flags.delay}": expected a duration such as 15m, 1h or 1d`);
      const { plan, refresh } = await withDatabase(async (database, context) => ({
        plan: await loadCapacityPlan(database, context.options),
        refresh: await loadRefreshOutlook(database, context.options, { now: new Date(), delayMs }),
      }));
      console.log(
        flags.json ? JSON.stringify({ ...plan, refresh }, null, 2) : formatPlan(plan, refresh, delayMs).join('\n'),
      );
      process.exitCode = refresh.unheld ? EXIT.overBudget : EXIT.ok;
    });
}
