import { Command } from 'commander';
import { EXIT } from '../exit-codes.ts';

export function planCommand(): Command {
  return new Command('plan')
    .description(
      'from the watchlist, the crons and the quota (UPSTREAM_RATE): the requests per hour each dataset needs, what the quota leaves it and how often it can really refresh a target; exit 0 when it fits, 3 when it does not',
    )
    .option('--json', 'print the plan as JSON (a cadence of null means never)')
    .action(async (flags: { json?: boolean }) => {
      const [{ withDatabase }, { loadCapacityPlan }, { formatPlan }] = await Promise.all([
        import('./database-command.ts'),
        import('../../scheduler/capacity-plan.ts'),
        import('../plan-table.ts'),
      ]);
      const plan = await withDatabase((database, context) => loadCapacityPlan(database, context.options));
      console.log(flags.json ? JSON.stringify(plan, null, 2) : formatPlan(plan).join('\n'));
      process.exitCode = plan.fits ? EXIT.ok : EXIT.overBudget;
    });
}
