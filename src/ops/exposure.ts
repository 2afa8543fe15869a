import { isLoopback } from '../config/loopback.ts';
import type { Options } from '../config/options.ts';
import { ConfigError } from '../errors.ts';

/**
 * Refuses a configuration that would let anyone who reaches the ops port read the status page,
 * metrics and Bull Board: a non-loopback OPS_HOST needs OPS_TOKEN. Also refuses an OPS_ADMIN_TOKEN
 * equal to OPS_TOKEN, which would give every reader the board's actions.
 */
export function assertSafeOpsExposure(options: Pick<Options, 'OPS_HOST' | 'OPS_TOKEN' | 'OPS_ADMIN_TOKEN'>): void {
  if (!options.OPS_TOKEN && !isLoopback(options.OPS_HOST)) {
    throw new ConfigError(
      `OPS_HOST is ${options.OPS_HOST}, beyond loopback, and OPS_TOKEN is not set: anyone who reaches the ops ` +
        'port could read the status page, metrics and queues. Set OPS_TOKEN (e.g. `openssl rand -hex 32`), ' +
        'or OPS_HOST=127.0.0.1',
    );
  }
  if (options.OPS_ADMIN_TOKEN && options.OPS_ADMIN_TOKEN === options.OPS_TOKEN) {
    throw new ConfigError('OPS_ADMIN_TOKEN must differ from OPS_TOKEN: the read token would allow Bull Board actions');
  }
}
