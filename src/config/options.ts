import cron from 'node-cron';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { DATASETS, type Dataset } from '../datasets.ts';
import { parseUpstreamRate, type UpstreamRate } from './upstream-rate.ts';
import { redisTopology } from './redis-topology.ts';
import { parseDuration } from './duration.ts';

/**
 * Every setting of chaintap, with its default, in one place (what each means: README.md,
 * "Configuration"). Built once from the environment (and a `.env` file, loaded by the CLI) plus
 * command-line overrides; nothing else reads process.env.
 */
const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const url = (protocols: string[]) =>
  z
    .string()
    .refine(
      (value) => protocols.includes(URL.parse(value)?.protocol ?? ''),
      `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    );
// Five fields (minute resolution): a tick's logical time is a whole minute.
const cronExpression = z
  .string()
  .refine(
    (value) => value.trim().split(/\s+/).length === 5 && cron.validate(value),
    'must be a valid five-field cron expression',
  );
/** A duration such as `24h` or `2d` (config/duration.ts), in milliseconds. */
const duration = z.string().transform((value, context) => {
  const ms = parseDuration(value);
  if (ms === undefined) {
    context.addIssue({ code: 'custom', message: 'must be a duration such as 30m, 24h, 2d or 1w' });
    return z.NEVER;
  }
  return ms;
});
const upstreamRate = z.string().transform((value, context) => {
  try {
    return parseUpstreamRate(value);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
const datasetOrder = z
  .string()
  .transform((value) => value.split(',').map((name) => name.trim()))
  .refine(
    (names) => names.length === DATASETS.length && DATASETS.every((dataset) => names.includes(dataset)),
    `must name ${DATASETS.join(', ')} once each, e.g. "${DATASETS.join(',')}"`,
  )
  .transform((names) => names as Dataset[]);
/** Host names or addresses (IPv6 with or without brackets), comma-separated, without ports. */
const hostList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((host) => host.trim())
      .filter((host) => host !== ''),
  )
  .refine(
    (hosts) => hosts.every((host) => /^([a-zA-Z0-9_.-]+|\[?[0-9a-fA-F:.]+\]?)$/.test(host)),
    'must be host names or addresses separated by commas, without ports, e.g. "ops.internal,10.0.0.5"',
  );
/** Networks beyond the public internet that a setting may open to alert webhooks (src/alerts/webhook-destination.ts). */
export const WEBHOOK_NETWORKS = ['loopback', 'private', 'link-local'] as const;
export type WebhookNetwork = (typeof WEBHOOK_NETWORKS)[number];
const webhookNetworks = z
  .string()
  .transform((value) => [...new Set(value.split(',').map((name) => name.trim().toLowerCase()))].filter(Boolean))
  .refine(
    (names) => names.every((name) => (WEBHOOK_NETWORKS as readonly string[]).includes(name)),
    `must name networks among ${WEBHOOK_NETWORKS.join(', ')}, comma-separated`,
  )
  .transform((names) => names as WebhookNetwork[]);
/** true, false, yes, no, 1 or 0 (watchlist files take the same words). */
export const booleanWord = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const optionsSchema = z.object({
  DATABASE_URL: url(['postgres:', 'postgresql:']).default('postgres://postgres@127.0.0.1:5432/chaintap'),
  DATABASE_POOL_SIZE: int(1, 200).default(10),
  DATABASE_READ_URL: url(['postgres:', 'postgresql:']).optional(),
  REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  REDIS_CLUSTER_NODES: z.string().min(1).optional(),
  REDIS_SENTINELS: z.string().min(1).optional(),
  REDIS_SENTINEL_NAME: z.string().min(1).optional(),
  REDIS_USERNAME: z.string().min(1).optional(),
  REDIS_PASSWORD: z.string().min(1).optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  REDIS_TLS: booleanWord.default(false),
  QUEUE_PREFIX: z
    .string()
    // No {hash tag}: chaintap tags its keys itself, one tag per queue (src/queue/redis-keys.ts).
    .regex(
      /^[A-Za-z0-9_-]+$/,
      'may contain letters, digits, _ and - only (chaintap adds the Redis Cluster hash tags itself)',
    )
    .default('chaintap'),
  /** No default: nothing runs against the simulator unless asked (`demo` and `simulate` set their own). */
  UPSTREAM_BASE_URL: url(['http:', 'https:']).optional(),
  UPSTREAM_API_KEY: z.string().min(1).optional(),
  UPSTREAM_RATE: upstreamRate.optional(),
  UPSTREAM_RPS: z.coerce.number().positive().max(100_000).optional(),
  DATASET_PRIORITY: datasetOrder.default([...DATASETS]),
  UPSTREAM_CONCURRENCY: int(1, 1000).default(16),
  UPSTREAM_TIMEOUT_MS: int(100, 600_000).default(15_000),
  UPSTREAM_MAX_BODY_BYTES: int(1024, 1024 * 1024 * 1024).default(8 * 1024 * 1024),
  UPSTREAM_MAX_ELEMENTS: int(100).default(100_000),
  UPSTREAM_MAX_RETRIES: int(0, 2).default(2),
  UPSTREAM_MAX_PAUSE_MS: int(1_000, 2 ** 31 - 1).default(15 * 60_000),
  /** Unit the upstream expects for the `timestamp` request field (not documented upstream). */
  UPSTREAM_TIMESTAMP_UNIT: z.enum(['seconds', 'milliseconds']).default('seconds'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  PRICE_CRON: cronExpression.default('* * * * *'),
  POSITIONS_CRON: cronExpression.default('*/15 * * * *'),
  NFT_CRON: cronExpression.default('0 * * * *'),
  MAINTENANCE_CRON: cronExpression.default('30 3 * * *'),
  FORCE_REFRESH_EVERY: int(0).default(0),
  /** Longest time between two refreshes of an address's dataset, unless the address sets its own (ms). */
  REFRESH_MAX_AGE: duration.default(86_400_000),
  CATCHUP_MAX_SLOTS: int(0, 100_000).default(60),
  CATCHUP_POLL_MS: int(100, 3_600_000).default(10_000),
  JOB_ATTEMPTS: int(1, 100).default(5),
  JOB_BACKOFF_MS: int(0).default(2_000),
  SHUTDOWN_GRACE_MS: int(0).default(30_000),
  JOB_LOCK_MS: int(1_000).default(60_000),
  JOB_MAX_STALLS: int(1, 1000).default(3),

  RAW_RETENTION_DAYS: int(0).default(14),
  RUNS_RETENTION_DAYS: int(0).default(90),
  QUARANTINE_RETENTION_DAYS: int(0).default(30),
  ALERT_EVENTS_RETENTION_DAYS: int(0).default(90),
  PRICE_PARTITION_DETACH_DAYS: int(0).default(0),
  SNAPSHOT_FULL_RESOLUTION_DAYS: int(0, 36_500).default(7),
  SNAPSHOT_HOURLY_DAYS: int(0, 36_500).default(90),
  SNAPSHOT_COMPACTION: booleanWord.default(true),

  OPS_HOST: z.string().min(1).default('127.0.0.1'),
  OPS_PORT: int(0, 65_535).default(9464),
  OPS_TOKEN: z.string().min(1).optional(),
  OPS_ALLOWED_HOSTS: hostList.default([]),
  OPS_ADMIN_TOKEN: z.string().min(1).optional(),
  ALERT_RULES: z.string().min(1).optional(),
  ALERT_WEBHOOK_NETWORKS: webhookNetworks.default([]),
  METRICS_ENABLED: booleanWord.default(true),
});

export type OptionsInput = z.input<typeof optionsSchema>;
/** Every setting's name, in the order above (`chaintap config` lists them so). */
export const SETTING_NAMES = Object.keys(optionsSchema.shape) as (keyof OptionsInput)[];
export type Options = Omit<z.output<typeof optionsSchema>, 'UPSTREAM_RATE' | 'UPSTREAM_RPS'> & {
  UPSTREAM_RATE: UpstreamRate;
  /** UPSTREAM_RATE in requests per second. */
  UPSTREAM_RPS: number;
};
/** Command-line flags that override settings. */
export type OptionOverrides = Partial<Record<keyof Options, string | number | boolean | undefined>>;

/** The environment's settings, command-line overrides winning, empty as unset; ConfigError names each bad one. */
export function loadOptions(
  overrides: OptionOverrides = {},
  env: Record<string, string | undefined> = process.env,
): Options {
  const input: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const value = overrides[name] ?? env[name];
    if (value !== undefined && value !== '') input[name] = typeof value === 'string' ? value.trim() : String(value);
  }
  const parsed = optionsSchema.safeParse(input);
  if (!parsed.success) {
    // Never echo the value: it may be a secret.
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const { UPSTREAM_RATE: rate, UPSTREAM_RPS: rps } = parsed.data;
  if (rate && rps !== undefined && Math.abs(rate.rps - rps) > 1e-9 * rps) {
    throw new ConfigError(
      `Invalid configuration:\n  UPSTREAM_RATE (${rate.label}) and UPSTREAM_RPS (${rps}/s) disagree: set only UPSTREAM_RATE`,
    );
  }
  // UPSTREAM_RPS is an alias of UPSTREAM_RATE; without either, the real service's free tier.
  const upstreamRate = rate ?? parseUpstreamRate(rps === undefined ? '40/min' : String(rps));
  const options = { ...parsed.data, UPSTREAM_RATE: upstreamRate, UPSTREAM_RPS: upstreamRate.rps };
  // The topology is checked now, so that a bad one is a configuration error before anything opens.
  redisTopology(options, { redisUrlSet: input.REDIS_URL !== undefined });
  return options;
}

/** The upstream's URL, or a clear error for commands that call the upstream. */
export function requireUpstreamBaseUrl(options: Pick<Options, 'UPSTREAM_BASE_URL'>): string {
  if (!options.UPSTREAM_BASE_URL) {
    throw new ConfigError(
      'UPSTREAM_BASE_URL is not set: the URL of the blockchain data service (see .env.example; `chaintap simulate` serves a simulated one)',
    );
  }
  return options.UPSTREAM_BASE_URL;
}

/** The API key, or a clear error for commands that call the upstream. */
export function requireApiKey(options: Options): string {
  if (!options.UPSTREAM_API_KEY) {
    throw new ConfigError('UPSTREAM_API_KEY is not set: the upstream requires an API key (see .env.example)');
  }
  return options.UPSTREAM_API_KEY;
}
