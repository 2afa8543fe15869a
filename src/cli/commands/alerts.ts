import { Command } from 'commander';
import { previewRules } from '../../alerts/evaluator.ts';
import { describeEvaluation } from '../../alerts/preview.ts';
import { loadRulesFile } from '../../alerts/rules-file.ts';
import { startAlerts } from '../../alerts/service.ts';
import { createDatabase, type Database } from '../../db/client.ts';
import { InvalidInputError } from '../../errors.ts';
import { createOpsServer } from '../../ops/server.ts';
import { withShutdown } from '../../runtime/shutdown.ts';
import { openResources, type Resources } from '../resources.ts';
import { createCliContext, untilShutdown } from '../runtime.ts';
import { openReadDatabase } from '../read-database.ts';
import { withDatabases } from './database-command.ts';

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
      const rulesFile = flags.rules;
      // A bad file is refused before anything connects.
      await loadRulesFile(rulesFile, process.env);
      const context = createCliContext();
      await withShutdown(context.logger, async (shutdown) => {
        let database: Database;
        let resources: Resources | undefined;
        if (flags.ops) {
          resources = await openResources(context, shutdown);
          database = resources.database;
        } else {
          // Postgres alone: the alerts need no Redis, and keep working when it is down.
          const { options, metrics, logger } = context;
          database = createDatabase(options.DATABASE_URL, { max: options.DATABASE_POOL_SIZE, metrics, logger });
          shutdown.add('postgres', () => database.close());
        }
        // The rules' observations may come from a read replica (docs/read-replicas.md); the outbox is the primary's.
        const readDatabase = openReadDatabase(context, shutdown, database);
        const ops = resources ? createOpsServer({ context, ...resources, readDatabase }) : undefined;
        if (ops) shutdown.add('ops server', () => ops.close());
        const alerts = await startAlerts({ context, database, readDatabase, rulesFile, env: process.env });
        shutdown.add('alerts', () => alerts.close());
        if (ops) context.logger.info({ url: await ops.listen() }, 'ops server listening');
        await untilShutdown(context);
      });
    });
  command.addCommand(
    new Command('test')
      .description(
        'validates the rules file and evaluates the rules against the current data, printing what would fire; sends and records nothing',
      )
      .option('--rules <file>', 'the rules file (YAML or JSON); required')
      .action(async (flags: { rules?: string }) => {
        const rulesFile = flags.rules ?? (command.opts() as { rules?: string }).rules;
        if (!rulesFile) throw new InvalidInputError('alerts test needs --rules <file>');
        const rules = await loadRulesFile(rulesFile, process.env);
        console.log(
          `${rulesFile}: valid, ${rules.rules.length} rule(s), ${rules.webhooks.length} webhook(s) (${rules.webhooks.map((webhook) => `${webhook.name}${webhook.signingKey ? ', signed' : ''}`).join('; ')})`,
        );
        const evaluations = await withDatabases(({ database, readDatabase }) =>
          previewRules(database, rules.rules, new Date(), { readDatabase }),
        );
        for (const evaluation of evaluations) console.log(describeEvaluation(evaluation).join('\n'));
        const firing = evaluations.reduce((sum, evaluation) => sum + evaluation.plan.events.length, 0);
        console.log(`${firing} event(s) would be sent now (nothing was sent or recorded)`);
      }),
  );
  return command;
}
