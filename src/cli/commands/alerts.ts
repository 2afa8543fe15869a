import { Command } from 'commander';
import { InvalidInputError } from '../../errors.ts';

export function alertsCommand(): Command {
  const command = new Command('alerts')
    .description(
      'evaluates the alert rules on every finished tick (and stale rules on a timer) and delivers each event once to its webhooks (docs/alerts.md); `alerts test` checks a rules file',
    )
    // Not a required option: commander would require it of `alerts test` too. And the program
    // parses options before dispatching, so `alerts test --rules F` sets this one: `test` reads it.
    .option('--rules <file>', 'the rules file (YAML or JSON); required')
    .option('--ops', 'also serve the ops server (/metrics, status page) on OPS_HOST:OPS_PORT')
    .action(async (flags: { rules?: string; ops?: boolean }) => {
      if (!flags.rules) throw new InvalidInputError('alerts needs --rules <file> (or `alerts test --rules <file>`)');
      const { runAlerts } = await import('../run-alerts.ts');
      await runAlerts(flags.rules, flags.ops === true);
    });
  command.addCommand(
    new Command('test')
      .description(
        'validates the rules file and evaluates the rules against the current data, printing what would fire; sends and records nothing',
      )
      .option('--rules <file>', 'the rules file (YAML or JSON); required')
      .option('--json', 'print what would fire as JSON (README: "JSON output")')
      .action(async (flags: { rules?: string; json?: boolean }) => {
        const rulesFile = flags.rules ?? (command.opts() as { rules?: string }).rules;
        if (!rulesFile) throw new InvalidInputError('alerts test needs --rules <file>');
        const { testAlertRules } = await import('../run-alerts.ts');
        await testAlertRules(rulesFile, { json: flags.json === true });
      }),
  );
  return command;
}
