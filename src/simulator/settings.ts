/**
 * Settings of `chaintap simulate`: one table drives the command-line flags and the SIM_* environment
 * variables (their validation: options.ts). Kept apart from the validation so that declaring the
 * command loads nothing more.
 */
export interface SimulatorSetting {
  /** Commander's camel-case name of the flag. */
  key: string;
  flag: string;
  env: string;
  description: string;
}

export const SIMULATOR_SETTINGS = [
  { key: 'host', flag: '--host <host>', env: 'SIM_HOST', description: 'interface to listen on (default 127.0.0.1)' },
  {
    key: 'port',
    flag: '--port <port>',
    env: 'SIM_PORT',
    description: 'port to listen on, 0 for a free one (default 8787)',
  },
  { key: 'apiKey', flag: '--api-key <key>', env: 'UPSTREAM_API_KEY', description: 'the x-api-key value to accept' },
  {
    key: 'seed',
    flag: '--seed <seed>',
    env: 'SIM_SEED',
    description: "seed of the simulated world (default 'chaintap')",
  },
  {
    key: 'faultSeed',
    flag: '--fault-seed <n>',
    env: 'SIM_FAULT_SEED',
    description: 'seed of the fault draws (default random)',
  },
  { key: 'latencyMs', flag: '--latency-ms <ms>', env: 'SIM_LATENCY_MS', description: 'latency added to every answer' },
  {
    key: 'latencyJitterMs',
    flag: '--latency-jitter-ms <ms>',
    env: 'SIM_LATENCY_JITTER_MS',
    description: 'uniform extra latency, 0 to this',
  },
  {
    key: 'spikeRate',
    flag: '--spike-rate <share>',
    env: 'SIM_SPIKE_RATE',
    description: 'share of requests delayed by --spike-ms',
  },
  { key: 'spikeMs', flag: '--spike-ms <ms>', env: 'SIM_SPIKE_MS', description: 'latency of a spike' },
  {
    key: 'error5xxRate',
    flag: '--error-5xx-rate <share>',
    env: 'SIM_ERROR_5XX_RATE',
    description: 'share answered 500/502/503',
  },
  {
    key: 'error429Rate',
    flag: '--error-429-rate <share>',
    env: 'SIM_ERROR_429_RATE',
    description: 'share answered 429 with Retry-After',
  },
  {
    key: 'retryAfterSeconds',
    flag: '--retry-after-seconds <s>',
    env: 'SIM_RETRY_AFTER_SECONDS',
    description: 'Retry-After of a random 429 (default 1)',
  },
  {
    key: 'malformedRate',
    flag: '--malformed-rate <share>',
    env: 'SIM_MALFORMED_RATE',
    description: 'share answered 200 with invalid or wrongly shaped JSON',
  },
  { key: 'timeoutRate', flag: '--timeout-rate <share>', env: 'SIM_TIMEOUT_RATE', description: 'share never answered' },
  {
    key: 'rateLimit',
    flag: '--rate-limit <n>',
    env: 'SIM_RATE_LIMIT',
    description: 'answer 429 past this many requests in a window of --rate-limit-window-ms (0: off)',
  },
  {
    key: 'rateLimitWindowMs',
    flag: '--rate-limit-window-ms <ms>',
    env: 'SIM_RATE_LIMIT_WINDOW_MS',
    description: 'length of the rate limit window (default 1000)',
  },
  {
    key: 'rateLimitWindow',
    flag: '--rate-limit-window <kind>',
    env: 'SIM_RATE_LIMIT_WINDOW',
    description:
      'sliding (trailing, open at its far end; default), closed (trailing, both ends) or fixed (whole windows of the clock)',
  },
  {
    key: 'positions',
    flag: '--positions <n>',
    env: 'SIM_POSITIONS',
    description: 'DeFi positions per address (default 10)',
  },
  {
    key: 'collections',
    flag: '--collections <n>',
    env: 'SIM_COLLECTIONS',
    description: 'NFT collections per address (default 5)',
  },
  {
    key: 'nftsPerCollection',
    flag: '--nfts-per-collection <n>',
    env: 'SIM_NFTS_PER_COLLECTION',
    description: 'NFTs per collection (default 3)',
  },
  {
    key: 'epochMs',
    flag: '--epoch-ms <ms>',
    env: 'SIM_EPOCH_MS',
    description: 'how long positions and NFTs stay constant (default 900000)',
  },
  {
    key: 'valuationMs',
    flag: '--valuation-ms <ms>',
    env: 'SIM_VALUATION_MS',
    description: 'within an epoch, values follow prices in steps of this (default 0: constant per epoch)',
  },
  {
    key: 'clockOffsetMs',
    flag: '--clock-offset-ms <ms>',
    env: 'SIM_CLOCK_OFFSET_MS',
    description: 'world time = now + this',
  },
  {
    key: 'fixedTime',
    flag: '--fixed-time <time>',
    env: 'SIM_FIXED_TIME',
    description: 'freeze the world time (ISO date-time or ms)',
  },
  {
    key: 'realShapes',
    flag: '--real-shapes',
    env: 'SIM_REAL_SHAPES',
    description:
      'answer with the shapes real answers show (numeric strings, duplicate ids, nested positions, { data } NFTs; default off)',
  },
] as const satisfies readonly SimulatorSetting[];

export type SimulatorSettingKey = (typeof SIMULATOR_SETTINGS)[number]['key'];
