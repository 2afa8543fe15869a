import { Command } from 'commander';
import { createOpsServer } from '../../ops/server.js';
import { DATASETS } from '../../queue/queues.js';
import { floorToMinute } from '../../scheduler/cron-slots.js';
import { produceTick } from '../../scheduler/producer.js';
import { createScheduler, type Scheduler } from '../../scheduler/scheduler.js';
import { createWorkerPool, type WorkerPool } from '../../worker/workers.js';
import { openResources, openUpstreamClient } from '../resources.js';
import type { Context } from '../../context.js';
import { createCliContext, untilShutdown } from '../runtime.js';

export interface ServiceSelection {
  scheduler: boolean;
  workers: boolean;
  ops: boolean;
  /** Enqueue one tick of every dataset right away instead of waiting for the first cron slot. */
  produceNow?: boolean;
}

/**
 * The long-running processes: scheduler, workers and the ops server, in any combination. Runs until
 * SIGTERM/SIGINT, then stops the scheduler, lets active jobs finish within SHUTDOWN_GRACE_MS and
 * closes every connection.
 */
export async function runServices(selection: ServiceSelection, context: Context): Promise<void> {
  const resources = await openResources(context);
  const client = selection.workers ? openUpstreamClient(context) : undefined;
  let scheduler: Scheduler | undefined;
  let pool: WorkerPool | undefined;
  const ops = selection.ops ? createOpsServer({ context, database: resources.database, redis: resources.redis, queues: resources.queues }) : undefined;
  try {
    if (client) pool = createWorkerPool({ context, ...resources, client });
    if (selection.scheduler) {
      scheduler = createScheduler({ context, ...resources });
      await scheduler.start();
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
  } finally {
    await scheduler?.stop();
    await pool?.close();
    await ops?.close();
    await client?.close();
    await resources.close();
    context.logger.info('stopped');
  }
}

export function startCommand(): Command {
  return new Command('start')
    .description('scheduler, workers and the ops server in one process')
    .action(() => runServices({ scheduler: true, workers: true, ops: true }, createCliContext()));
}

export function workerCommand(): Command {
  return new Command('worker')
    .description('workers and the ops server (run any number, on any machine, against one Redis and Postgres)')
    .option('--concurrency <n>', 'jobs at a time per queue (UPSTREAM_CONCURRENCY)')
    .action((flags: { concurrency?: string }) =>
      runServices({ scheduler: false, workers: true, ops: true }, createCliContext({ UPSTREAM_CONCURRENCY: flags.concurrency })),
    );
}

export function schedulerCommand(): Command {
  return new Command('scheduler')
    .description('the cron producers only (two may run at once for availability)')
    // Off by default so that a scheduler and a worker on one machine do not both claim OPS_PORT.
    .option('--ops', 'also serve the ops server (/healthz, /readyz, /metrics, status page) on OPS_HOST:OPS_PORT')
    .action((flags: { ops?: boolean }) => runServices({ scheduler: true, workers: false, ops: flags.ops === true }, createCliContext()));
}
