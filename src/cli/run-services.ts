import { startAlerts } from '../alerts/service.ts';
import { loadRulesFile } from '../alerts/rules.ts';
import { assertSafeOpsExposure } from '../ops/exposure.ts';
import { createOpsServer } from '../ops/server.ts';
import { floorToMinute } from '../scheduler/cron-slots.ts';
import { produceTick } from '../scheduler/producer.ts';
import { createScheduler } from '../scheduler/scheduler.ts';
import { createWorkerPool } from '../worker/workers.ts';
import { openResources, openUpstreamClient } from './resources.ts';
import { openServiceReadDatabase } from './read-database.ts';
import type { Context } from '../runtime/context.ts';
import { withShutdown } from '../runtime/shutdown.ts';
import { untilShutdown } from './runtime.ts';
import { DATASETS } from '../datasets.ts';

export interface ServiceSelection {
  scheduler: boolean;
  workers: boolean;
  ops: boolean;
  /** Enqueue one tick of every dataset right away instead of waiting for the first cron slot. */
  produceNow?: boolean;
  /** Also evaluate and deliver the alert rules when ALERT_RULES names a rules file (docs/alerts.md). */
  alerts?: boolean;
}

/** The selected services until SIGTERM/SIGINT; then active jobs get SHUTDOWN_GRACE_MS to finish. */
export async function runServices(selection: ServiceSelection, context: Context): Promise<void> {
  // Before anything is opened: an exposed ops port without OPS_TOKEN is a ConfigError.
  if (selection.ops) assertSafeOpsExposure(context.options);
  await withShutdown(context.logger, async (shutdown) => {
    const resources = await openResources(context, shutdown);
    // What the status page and the reports read (docs/read-replicas.md).
    const readDatabase = openServiceReadDatabase(context, shutdown, resources.database);
    const client = selection.workers ? openUpstreamClient(context, shutdown) : undefined;
    const ops = selection.ops ? createOpsServer({ context, ...resources, readDatabase }) : undefined;
    if (ops) shutdown.add('ops server', () => ops.close());
    if (client) {
      const pool = createWorkerPool({ context, ...resources, client });
      shutdown.add('workers', () => pool.close());
    }
    if (selection.scheduler) {
      const scheduler = createScheduler({ context, ...resources });
      shutdown.add('scheduler', () => scheduler.stop());
      await scheduler.start();
    }
    if (selection.alerts && context.options.ALERT_RULES) {
      const rules = await loadRulesFile(context.options.ALERT_RULES, process.env);
      const alerts = await startAlerts({ context, database: resources.database, rules });
      shutdown.add('alerts', () => alerts.close());
    }
    if (selection.produceNow) {
      const tick = floorToMinute(new Date());
      for (const dataset of DATASETS) await produceTick({ context, ...resources }, dataset, tick);
    }
    if (ops) {
      const url = await ops.listen();
      context.logger.info({ url }, 'ops server listening (status page, /metrics, /healthz, /readyz, /queues)');
    }
    context.logger.info(selection, 'chaintap running');
    await untilShutdown(context);
  });
  context.logger.info('stopped');
}
