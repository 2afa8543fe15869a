import { existsSync } from 'node:fs';
import { loadOptions, type Options } from '../config/options.js';
import type { Context } from '../runtime/context.js';
import { isLostArrayTypeFetch } from '../db/driver-faults.js';
import { createLogger } from '../runtime/logger.js';
import { createMetrics } from '../runtime/metrics.js';

export type OptionOverrides = Partial<Record<keyof Options, string | number | boolean | undefined>>;

/** Reads `.env` from the working directory when present; variables already set win. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

/**
 * The process context of a CLI command: options from the environment (and flags), a logger that
 * redacts the secrets, metrics, and an abort signal raised by SIGTERM/SIGINT.
 */
export function createCliContext(overrides: OptionOverrides = {}): Context {
  const options = loadOptions(overrides, process.env);
  const logger = createLogger({ level: options.LOG_LEVEL, secrets: [options.UPSTREAM_API_KEY, options.OPS_TOKEN] });
  const metrics = createMetrics({ defaultMetrics: options.METRICS_ENABLED });
  const shutdown = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    if (shutdown.signal.aborted) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    logger.info({ signal }, 'shutting down');
    shutdown.abort();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // A known driver fault when Postgres drops a new connection (src/db/driver-faults.ts): logged, not
  // fatal. Any other unhandled rejection still ends the process, as Node's default does.
  process.on('unhandledRejection', (reason) => {
    if (!isLostArrayTypeFetch(reason)) throw reason;
    logger.warn(
      { err: (reason as Error).message },
      'a new Postgres connection was lost while starting; the driver reconnects',
    );
  });
  return { options, logger, metrics, signal: shutdown.signal };
}

/** Resolves when the context's shutdown signal is raised. */
export function untilShutdown(context: Context): Promise<void> {
  return new Promise((resolve) => {
    if (context.signal.aborted) resolve();
    else context.signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
