import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { NO_FAULTS, resolveFaults, type SimulatorFaults } from './faults.ts';
import { WINDOW_KINDS } from './request-window.ts';
import type { SimulatorOptions } from './server.ts';
import type { SimulatorWorld } from './world.ts';
import { SIMULATOR_SETTINGS, type SimulatorSettingKey } from './settings.ts';

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

/** How each setting is read; flags win over the environment and empty values count as unset. */
const SCHEMAS: Record<SimulatorSettingKey, z.ZodType> = {
  host: z.string().min(1),
  port: int(0, 65_535),
  apiKey: z.string().min(1),
  seed: z.string().min(1),
  faultSeed: int(0, 4_294_967_295),
  latencyMs: ms,
  latencyJitterMs: ms,
  spikeRate: rate,
  spikeMs: ms,
  error5xxRate: rate,
  error429Rate: rate,
  retryAfterSeconds: int(0, 3600),
  malformedRate: rate,
  timeoutRate: rate,
  rateLimit: int(0, 1_000_000),
  rateLimitWindowMs: int(1, 86_400_000),
  rateLimitWindow: z.enum(WINDOW_KINDS),
  positions: int(0, 1000),
  collections: int(0, 400),
  nftsPerCollection: int(0, 100),
  epochMs: int(1000, 365 * 86_400_000),
  valuationMs: int(0, 365 * 86_400_000),
  clockOffsetMs: z.coerce.number().int(),
  clockRate: z.coerce.number().min(0).max(1_000_000),
  fixedTime: time,
  realShapes: flag,
  habits: flag,
};

export type SimulatorFlags = Partial<Record<string, string | number | boolean | undefined>>;

/** Simulator options from flags and the environment; throws ConfigError naming every bad setting. */
export function loadSimulatorOptions(flags: SimulatorFlags, env: Record<string, string | undefined>): SimulatorOptions {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const entry of SIMULATOR_SETTINGS) {
    const raw = flags[entry.key] ?? env[entry.env];
    if (raw === undefined || String(raw).trim() === '') continue;
    const parsed = SCHEMAS[entry.key].safeParse(String(raw).trim());
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

  // The fault settings are named as the faults are.
  const faults = Object.fromEntries(
    Object.keys(NO_FAULTS).flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])),
  ) as Partial<SimulatorFaults>;
  resolveFaults(faults);
  const world: Partial<SimulatorWorld> = {};
  if (values.positions !== undefined) world.positionsPerAddress = values.positions as number;
  if (values.collections !== undefined) world.collectionsPerAddress = values.collections as number;
  if (values.nftsPerCollection !== undefined) world.tokensPerCollection = values.nftsPerCollection as number;
  if (values.epochMs !== undefined) world.epochMs = values.epochMs as number;
  if (values.valuationMs !== undefined) world.valuationMs = values.valuationMs as number;
  if (values.realShapes !== undefined) world.realShapes = values.realShapes as boolean;
  if (values.habits !== undefined) world.habits = values.habits as boolean;

  return {
    host: (values.host as string | undefined) ?? '127.0.0.1',
    port: (values.port as number | undefined) ?? 8787,
    apiKey: values.apiKey as string,
    seed: values.seed as string | undefined,
    faultSeed: values.faultSeed as number | undefined,
    faults,
    world,
    clockOffsetMs: values.clockOffsetMs as number | undefined,
    clockRate: values.clockRate as number | undefined,
    fixedTimeMs: values.fixedTime as number | undefined,
  };
}
