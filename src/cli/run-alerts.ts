import { previewRules } from '../alerts/evaluator.ts';
import { describeEvaluation, previewEvaluation } from '../alerts/preview.ts';
import { loadRulesFile } from '../alerts/rules.ts';
import { startAlerts } from '../alerts/service.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { createOpsServer, type OpsServer } from '../ops/server.ts';
import { withShutdown } from '../runtime/shutdown.ts';
import { withDatabase } from './commands/database-command.ts';
import { openServiceReadDatabase } from './read-database.ts';
import { openResources } from './resources.ts';
import { createCliContext, untilShutdown } from './runtime.ts';

/** `chaintap alerts` until SIGTERM/SIGINT; a bad rules file is refused before anything connects. */
export async function runAlerts(rulesFile: string, withOps: boolean): Promise<void> {
  const rules = await loadRulesFile(rulesFile, process.env);
  const context = createCliContext();
  await withShutdown(context.logger, async (shutdown) => {
    let database: Database;
    let ops: OpsServer | undefined;
    if (withOps) {
      const resources = await openResources(context, shutdown);
      database = resources.database;
      // The ops server's status page reads a read replica when there is one (docs/read-replicas.md).
      const readDatabase = openServiceReadDatabase(context, shutdown, database);
      const server = createOpsServer({ context, ...resources, readDatabase });
      shutdown.add('ops server', () => server.close());
      ops = server;
    } else {
      // Postgres alone: the alerts need no Redis, and keep working when it is down.
      const { options, metrics, logger } = context;
      database = createDatabase(options.DATABASE_URL, { max: options.DATABASE_POOL_SIZE, metrics, logger });
      shutdown.add('postgres', () => database.close());
    }
    const alerts = await startAlerts({ context, database, rules });
    shutdown.add('alerts', () => alerts.close());
    if (ops) context.logger.info({ url: await ops.listen() }, 'ops server listening');
    await untilShutdown(context);
  });
}

/**
 * `chaintap alerts test`: validates the file and prints what the rules would fire now (with `json`, as
 * one document: docs/operations.md, "JSON output"); sends and records nothing.
 */
export async function testAlertRules(rulesFile: string, { json }: { json: boolean }): Promise<void> {
  const rules = await loadRulesFile(rulesFile, process.env);
  const webhooks = rules.webhooks.map((webhook) => ({ name: webhook.name, signed: Boolean(webhook.signingKey) }));
  if (!json) {
    const described = webhooks.map((webhook) => `${webhook.name}${webhook.signed ? ', signed' : ''}`).join('; ');
    console.log(`${rulesFile}: valid, ${rules.rules.length} rule(s), ${webhooks.length} webhook(s) (${described})`);
  }
  const evaluations = await withDatabase((database) => previewRules(database, rules.rules, new Date()));
  const wouldSend = evaluations.reduce((sum, evaluation) => sum + evaluation.plan.events.length, 0);
  if (json) {
    const document = {
      file: rulesFile,
      rules: rules.rules.length,
      webhooks,
      evaluations: evaluations.map(previewEvaluation),
      wouldSend,
    };
    console.log(JSON.stringify(document, null, 2));
    return;
  }
  for (const evaluation of evaluations) console.log(describeEvaluation(evaluation).join('\n'));
  console.log(`${wouldSend} event(s) would be sent now (nothing was sent or recorded)`);
}
