import type { Options } from '../config/options.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';

/**
 * What every factory receives: the settings, a logger, the metrics and the process's shutdown
 * signal. Connections are created by factories from it, never held in module-level singletons.
 */
export interface Context {
  options: Options;
  logger: Logger;
  metrics: Metrics;
  /** Aborted when the process is asked to stop (SIGTERM/SIGINT). */
  signal: AbortSignal;
}
