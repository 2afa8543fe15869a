import pino, { type Logger } from 'pino';
import { isScrubbable, secretScrubber } from './scrub.ts';

export type { Logger };

/** Fields that hold secrets, at the top of a log line or one level down. */
const REDACTED_PATHS = [
  'apiKey',
  'UPSTREAM_API_KEY',
  'headers["x-api-key"]',
  'OPS_TOKEN',
  'OPS_ADMIN_TOKEN',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
  'password',
  'sentinelPassword',
].flatMap((path) => [path, `*.${path}`]);

export interface LoggerSettings {
  level: string;
  /** Secrets to scrub from every line, in every form (scrub.ts), whatever field or message they end up in. */
  secrets?: (string | undefined)[];
  /** Pretty output; default: when stdout is a TTY. */
  pretty?: boolean;
  destination?: pino.DestinationStream;
}

/**
 * What log shippers (Loki, Datadog, Cloud Logging, Elastic) read without remapping: the level's name
 * (`"level":"warn"`), an ISO-8601 UTC time, and the service that wrote the line. pino's own options.
 */
const SHIPPER_FIELDS: pino.LoggerOptions = {
  base: { service: 'chaintap', pid: process.pid },
  formatters: { level: (label) => ({ level: label }) },
  timestamp: pino.stdTimeFunctions.isoTime,
};

/**
 * JSON logs by default (one object per line, in the shape shippers expect), readable on a TTY. Known
 * secret fields are redacted, and as a second line of defence every written line has the secrets
 * replaced, as they are, URL-encoded or JSON-escaped (a secret with a quote or a backslash shows in
 * a JSON line only escaped).
 */
export function createLogger(settings: LoggerSettings): Logger {
  const secrets = (settings.secrets ?? []).filter(isScrubbable);
  const pretty = settings.pretty ?? (process.stdout.isTTY === true && !settings.destination);
  const options: pino.LoggerOptions = {
    level: settings.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // An explicit `hooks: undefined` would replace pino's default hooks and break it: only set when needed.
    ...(secrets.length ? { hooks: { streamWrite: secretScrubber(secrets) } } : {}),
  };
  if (pretty && !settings.destination) {
    // pino-pretty prints the level and time its own way, from pino's numeric level and epoch time.
    return pino({
      ...options,
      base: { pid: process.pid },
      transport: { target: 'pino-pretty', options: { colorize: true, destination: 2 } },
    });
  }
  return pino({ ...options, ...SHIPPER_FIELDS }, settings.destination ?? pino.destination({ fd: 2, sync: false }));
}
