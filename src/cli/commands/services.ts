import { Command } from 'commander';
import { startAlerts } from '../../alerts/service.ts';
import { assertSafeOpsExposure } from '../../ops/exposure.ts';
import { createOpsServer } from '../../ops/server.ts';
import { floorToMinute } from '../../scheduler/cron-slots.ts';
import { produceTick } from '../../scheduler/producer.ts';
import { createScheduler } from '../../scheduler/scheduler.ts';
import { createWorkerPool } from '../../worker/workers.ts';
import { openResources, openUpstreamClient } from '../resources.ts';
import { openReadDatabase } from '../read-database.ts';
import type { Context } from '../../runtime/context.ts';
import { withShutdown } from '../../runtime/shutdown.ts';
import { createCliContext, untilShutdown } from '../runtime.ts';
import { DATASETS } from '../../datasets.ts';

export interface ServiceSelection {
  scheduler: boolean;
  workers: boolean;
  ops: boolean;
  /** Enqueue one tick of every dataset right away instead of waiting for the first cron slot. */
  produceNow?: boolean;
  /** Also evaluate and deliver the alert rules when ALERT_RULES names a rules file (docs/alerts.md). */
  alerts?: boolean;
}

/**
 * The long-running processes: scheduler, workers and the ops server, in any combination. Runs until
 * SIGTERM/SIGINT, then stops the scheduler, lets active jobs finish within SHUTDOWN_GRACE_MS and
 * closes every connection.
 */
export async function runServices(selection: ServiceSelection, context: Context): Promise<void> {
  // Before anything is opened: an exposed ops port without OPS_TOKEN is a ConfigError, and the
  // command exits with its message alone.
  if (selection.ops) assertSafeOpsExposure(context.options);
  await withShutdown(context.logger, async (shutdown) => {
    const resources = await openResources(context, shutdown);
    // What the status page, the reports and the alert rules' observations read (docs/read-replicas.md).
    const readDatabase = openReadDatabase(context, shutdown, resources.database);
    const client = selection.workers ? openUpstreamClient(context) : undefined;
    if (client) shutdown.add('upstream client', () => client.close());
    const ops = selection.ops
      ? createOpsServer({
          context,
          database: resources.database,
          readDatabase,
          redis: resources.redis,
          queues: resources.queues,
        })
      : undefined;
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
      const alerts = await startAlerts({
        context,
        database: resources.database,
        readDatabase,
        rulesFile: context.options.ALERT_RULES,
        env: process.env,
      });
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

export function startCommand(): Command {
  return new Command('start')
    .description('scheduler, workers and the ops server in one process')
    .action(() => runServices({ scheduler: true, workers: true, ops: true, alerts: true }, createCliContext()));
}

export function workerCommand(): Command {
  return new Command('worker')
    .description('workers and the ops server (run any number, on any machine, against one Redis and Postgres)')
    .option('--concurrency <n>', 'jobs at a time per queue (UPSTREAM_CONCURRENCY)')
    .action((flags: { concurrency?: string }) =>
      runServices(
        { scheduler: false, workers: true, ops: true },
        createCliContext({ UPSTREAM_CONCURRENCY: flags.concurrency }),
      ),
    );
}

export function schedulerCommand(): Command {
  return (
    new Command('scheduler')
      .description('the cron producers only (two may run at once for availability)')
      // Off by default so that a scheduler and a worker on one machine do not both claim OPS_PORT.
      .option('--ops', 'also serve the ops server (/healthz, /readyz, /metrics, status page) on OPS_HOST:OPS_PORT')
      .action((flags: { ops?: boolean }) =>
        runServices({ scheduler: true, workers: false, ops: flags.ops === true }, createCliContext()),
      )
  );
}
