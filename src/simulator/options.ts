import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { resolveFaults, type SimulatorFaults } from './faults.ts';
import { WINDOW_KINDS, type WindowKind } from './request-window.ts';
import type { SimulatorOptions } from './server.ts';
import type { SimulatorWorld } from './world.ts';

/**
 * Settings of `chaintap simulate`: one table drives the command-line flags, the SIM_* environment
 * variables and their validation. Flags win over the environment; empty values count as unset.
 */
const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const rate = z.coerce.number().min(0).max(1);
const ms = int(0, 3_600_000);
const flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
const time = z.string().transform((value, context) => {
  const ms = /^-?\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) {
    context.addIssue({ code: 'custom', message: 'must be an ISO date-time or milliseconds since 1970' });
    return z.NEVER;
  }
  return ms;
});

export interface SimulatorSetting {
  /** Commander's camel-case name of the flag. */
  key: string;
  flag: string;
  env: string;
  description: string;
  schema: z.ZodType;
  secret?: boolean;
}

const setting = (
  key: string,
  flag: string,
  env: string,
  description: string,
  schema: z.ZodType,
  secret = false,
): SimulatorSetting => ({
  key,
  flag,
  env,
  description,
  schema,
  secret,
});

export const SIMULATOR_SETTINGS: readonly SimulatorSetting[] = [
  setting('host', '--host <host>', 'SIM_HOST', 'interface to listen on (default 127.0.0.1)', z.string().min(1)),
  setting('port', '--port <port>', 'SIM_PORT', 'port to listen on, 0 for a free one (default 8787)', int(0, 65_535)),
  setting('apiKey', '--api-key <key>', 'UPSTREAM_API_KEY', 'the x-api-key value to accept', z.string().min(1), true),
  setting('seed', '--seed <seed>', 'SIM_SEED', "seed of the simulated world (default 'chaintap')", z.string().min(1)),
  setting(
    'faultSeed',
    '--fault-seed <n>',
    'SIM_FAULT_SEED',
    'seed of the fault draws (default random)',
    int(0, 4_294_967_295),
  ),
  setting('latencyMs', '--latency-ms <ms>', 'SIM_LATENCY_MS', 'latency added to every answer', ms),
  setting(
    'latencyJitterMs',
    '--latency-jitter-ms <ms>',
    'SIM_LATENCY_JITTER_MS',
    'uniform extra latency, 0 to this',
    ms,
  ),
  setting('spikeRate', '--spike-rate <share>', 'SIM_SPIKE_RATE', 'share of requests delayed by --spike-ms', rate),
  setting('spikeMs', '--spike-ms <ms>', 'SIM_SPIKE_MS', 'latency of a spike', ms),
  setting('error5xxRate', '--error-5xx-rate <share>', 'SIM_ERROR_5XX_RATE', 'share answered 500/502/503', rate),
  setting(
    'error429Rate',
    '--error-429-rate <share>',
    'SIM_ERROR_429_RATE',
    'share answered 429 with Retry-After',
    rate,
  ),
  setting(
    'retryAfterSeconds',
    '--retry-after-seconds <s>',
    'SIM_RETRY_AFTER_SECONDS',
    'Retry-After of a random 429 (default 1)',
    int(0, 3600),
  ),
  setting(
    'malformedRate',
    '--malformed-rate <share>',
    'SIM_MALFORMED_RATE',
    'share answered 200 with invalid or wrongly shaped JSON',
    rate,
  ),
  setting('timeoutRate', '--timeout-rate <share>', 'SIM_TIMEOUT_RATE', 'share never answered', rate),
  setting(
    'rateLimit',
    '--rate-limit <n>',
    'SIM_RATE_LIMIT',
    'answer 429 past this many requests in a window of --rate-limit-window-ms (0: off)',
    int(0, 1_000_000),
  ),
  setting(
    'rateLimitWindowMs',
    '--rate-limit-window-ms <ms>',
    'SIM_RATE_LIMIT_WINDOW_MS',
    'length of the rate limit window (default 1000)',
    int(1, 86_400_000),
  ),
  setting(
    'rateLimitWindow',
    '--rate-limit-window <kind>',
    'SIM_RATE_LIMIT_WINDOW',
    'sliding (trailing, open at its far end; default), closed (trailing, both ends) or fixed (whole windows of the clock)',
    z.enum(WINDOW_KINDS),
  ),
  setting('positions', '--positions <n>', 'SIM_POSITIONS', 'DeFi positions per address (default 10)', int(0, 1000)),
  setting(
    'collections',
    '--collections <n>',
    'SIM_COLLECTIONS',
    'NFT collections per address (default 5)',
    int(0, 400),
  ),
  setting(
    'nftsPerCollection',
    '--nfts-per-collection <n>',
    'SIM_NFTS_PER_COLLECTION',
    'NFTs per collection (default 3)',
    int(0, 100),
  ),
  setting(
    'epochMs',
    '--epoch-ms <ms>',
    'SIM_EPOCH_MS',
    'how long positions and NFTs stay constant (default 900000)',
    int(1000, 365 * 86_400_000),
  ),
  setting(
    'valuationMs',
    '--valuation-ms <ms>',
    'SIM_VALUATION_MS',
    'within an epoch, values follow prices in steps of this (default 0: constant per epoch)',
    int(0, 365 * 86_400_000),
  ),
  setting(
    'clockOffsetMs',
    '--clock-offset-ms <ms>',
    'SIM_CLOCK_OFFSET_MS',
    'world time = now + this',
    z.coerce.number().int(),
  ),
  setting('fixedTime', '--fixed-time <time>', 'SIM_FIXED_TIME', 'freeze the world time (ISO date-time or ms)', time),
  setting(
    'realShapes',
    '--real-shapes',
    'SIM_REAL_SHAPES',
    'answer with the shapes real answers show (numeric strings, duplicate ids, nested positions, { data } NFTs; default off)',
    flag,
  ),
];

export type SimulatorFlags = Partial<Record<string, string | number | boolean | undefined>>;

/** Simulator options from flags and the environment; throws ConfigError naming every bad setting. */
export function loadSimulatorOptions(flags: SimulatorFlags, env: Record<string, string | undefined>): SimulatorOptions {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const entry of SIMULATOR_SETTINGS) {
    const raw = flags[entry.key] ?? env[entry.env];
    if (raw === undefined || String(raw).trim() === '') continue;
    const parsed = entry.schema.safeParse(String(raw).trim());
    // Never echo the value: the API key is a secret.
    if (parsed.success) values[entry.key] = parsed.data;
    else
      problems.push(
        `  ${entry.flag.split(' ')[0]} / ${entry.env}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`,
      );
  }
  if (values.apiKey === undefined)
    problems.push('  --api-key / UPSTREAM_API_KEY: required (the key clients must send as x-api-key)');
  if (problems.length > 0) throw new ConfigError(`Invalid simulator configuration:\n${problems.join('\n')}`);

  const faults: Partial<SimulatorFaults> = {};
  for (const name of [
    'latencyMs',
    'latencyJitterMs',
    'spikeRate',
    'spikeMs',
    'error5xxRate',
    'error429Rate',
    'retryAfterSeconds',
    'malformedRate',
    'timeoutRate',
    'rateLimit',
    'rateLimitWindowMs',
  ] as const) {
    if (values[name] !== undefined) faults[name] = values[name] as number;
  }
  if (values.rateLimitWindow !== undefined) faults.rateLimitWindow = values.rateLimitWindow as WindowKind;
  resolveFaults(faults);
  const world: Partial<SimulatorWorld> = {};
  if (values.positions !== undefined) world.positionsPerAddress = values.positions as number;
  if (values.collections !== undefined) world.collectionsPerAddress = values.collections as number;
  if (values.nftsPerCollection !== undefined) world.tokensPerCollection = values.nftsPerCollection as number;
  if (values.epochMs !== undefined) world.epochMs = values.epochMs as number;
  if (values.valuationMs !== undefined) world.valuationMs = values.valuationMs as number;
  if (values.realShapes !== undefined) world.realShapes = values.realShapes as boolean;

  return {
    host: (values.host as string | undefined) ?? '127.0.0.1',
    port: (values.port as number | undefined) ?? 8787,
    apiKey: values.apiKey as string,
    seed: values.seed as string | undefined,
    faultSeed: values.faultSeed as number | undefined,
    faults,
    world,
    clockOffsetMs: values.clockOffsetMs as number | undefined,
    fixedTimeMs: values.fixedTime as number | undefined,
  };
}
