import type { Options } from '../config/options.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

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
