import { once } from 'node:events';
import { loadOptions, type OptionOverrides } from '../config/options.ts';
import { secretValues } from '../config/secrets.ts';
import type { Context } from '../runtime/context.ts';
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
  return { options, logger, metrics, signal };
}

/** Resolves when the context's shutdown signal is raised. */
export async function untilShutdown(context: Context): Promise<void> {
  if (!context.signal.aborted) await once(context.signal, 'abort');
}
