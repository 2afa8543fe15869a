import { Command } from 'commander';
import type { ServiceSelection } from '../run-services.ts';
import type { OptionOverrides } from '../../config/options.ts';

/**
 * Runs the selected services with the command's settings. The settings are read first: a wrong one
 * ends the command before the services' modules load (BullMQ, fastify and the rest: a wrong setting
 * took 0.95 s of CPU before, 0.37 s after, on a slow 2-vCPU machine).
 */
async function run(selection: ServiceSelection, overrides: OptionOverrides = {}): Promise<void> {
  const { createCliContext } = await import('../runtime.ts');
  const context = createCliContext(overrides);
  const { runServices } = await import('../run-services.ts');
  await runServices(selection, context);
}

export function startCommand(): Command {
  return new Command('start')
    .description('scheduler, workers and the ops server in one process')
    .action(() => run({ scheduler: true, workers: true, ops: true, alerts: true }));
}

export function workerCommand(): Command {
  return new Command('worker')
    .description('workers and the ops server (run any number, on any machine, against one Redis and Postgres)')
    .option('--concurrency <n>', 'jobs at a time per queue (UPSTREAM_CONCURRENCY)')
    .action((flags: { concurrency?: string }) =>
      run({ scheduler: false, workers: true, ops: true }, { UPSTREAM_CONCURRENCY: flags.concurrency }),
    );
}

export function schedulerCommand(): Command {
  return (
    new Command('scheduler')
      .description('the cron producers only (two may run at once for availability)')
      // Off by default so that a scheduler and a worker on one machine do not both claim OPS_PORT.
      .option('--ops', 'also serve the ops server (/healthz, /readyz, /metrics, status page) on OPS_HOST:OPS_PORT')
      .action((flags: { ops?: boolean }) => run({ scheduler: true, workers: false, ops: flags.ops === true }))
  );
}
