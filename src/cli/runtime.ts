import { once } from 'node:events';
import { loadOptions, type OptionOverrides } from '../config/options.ts';
import { secretValues } from '../config/secrets.ts';
import type { Context } from '../runtime/context.ts';
import { isLostArrayTypeFetch } from '../db/driver-faults.ts';
import { createLogger, type LoggerSettings } from '../runtime/logger.ts';
import { createMetrics } from '../runtime/metrics.ts';
import { abortOnSignals } from './signals.ts';

/**
 * A CLI command's options, logger (secrets redacted; to `destination` when given, else standard
 * error), metrics, and SIGTERM/SIGINT as a signal.
 */
export function createCliContext(
  overrides: OptionOverrides = {},
  { destination }: Pick<LoggerSettings, 'destination'> = {},
): Context {
  const options = loadOptions(overrides);
  const logger = createLogger({ level: options.LOG_LEVEL, secrets: secretValues(options), destination });
  const metrics = createMetrics({ defaultMetrics: options.METRICS_ENABLED });
  const signal = abortOnSignals((signal, second) =>
    second ? logger.warn({ signal }, 'second signal: exiting now') : logger.info({ signal }, 'shutting down'),
  );
  // A known driver fault when Postgres drops a new connection (src/db/driver-faults.ts): logged, not
  // fatal. Any other unhandled rejection still ends the process, as Node's default does.
  process.on('unhandledRejection', (reason) => {
    if (!isLostArrayTypeFetch(reason)) throw reason;
    logger.warn(
      { err: (reason as Error).message },
      'a new Postgres connection was lost while starting; the driver reconnects',
    );
  });
  return { options, logger, metrics, signal };
}

/** Resolves when the context's shutdown signal is raised. */
export async function untilShutdown(context: Context): Promise<void> {
  if (!context.signal.aborted) await once(context.signal, 'abort');
}
