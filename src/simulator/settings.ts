/**
 * A setting of `chaintap simulate` (validated in options.ts, apart so that declaring the command loads
 * nothing more): `key` is commander's name of the flag; the variable is SIM_ and the flag's name
 * (--latency-ms: SIM_LATENCY_MS) unless `env` names another.
 */
function setting<const Key extends string>(key: Key, flag: string, description: string, env?: string) {
  env ??= `SIM_${flag.split(' ')[0]!.slice(2).replaceAll('-', '_').toUpperCase()}`;
  return { key, flag, env, description };
}

export const SIMULATOR_SETTINGS = [
  setting('host', '--host <host>', 'interface to listen on (default 127.0.0.1)'),
  setting('port', '--port <port>', 'port to listen on, 0 for a free one (default 8787)'),
  setting('apiKey', '--api-key <key>', 'the x-api-key value to accept', 'UPSTREAM_API_KEY'),
  setting('seed', '--seed <seed>', "seed of the simulated world (default 'chaintap')"),
  setting('faultSeed', '--fault-seed <n>', 'seed of the fault draws (default random)'),
  setting('latencyMs', '--latency-ms <ms>', 'latency added to every answer'),
  setting('latencyJitterMs', '--latency-jitter-ms <ms>', 'uniform extra latency, 0 to this'),
  setting('spikeRate', '--spike-rate <share>', 'share of requests delayed by --spike-ms'),
  setting('spikeMs', '--spike-ms <ms>', 'latency of a spike'),
  setting('error5xxRate', '--error-5xx-rate <share>', 'share answered 500/502/503'),
  setting('error429Rate', '--error-429-rate <share>', 'share answered 429 with Retry-After'),
  setting('retryAfterSeconds', '--retry-after-seconds <s>', 'Retry-After of a random 429 (default 1)'),
  setting('malformedRate', '--malformed-rate <share>', 'share answered 200 with invalid or wrongly shaped JSON'),
  setting('timeoutRate', '--timeout-rate <share>', 'share never answered'),
  setting(
    'rateLimit',
    '--rate-limit <n>',
    'answer 429 past this many requests in a window of --rate-limit-window-ms (0: off)',
  ),
  setting('rateLimitWindowMs', '--rate-limit-window-ms <ms>', 'length of the rate limit window (default 1000)'),
  setting(
    'rateLimitWindow',
    '--rate-limit-window <kind>',
    'sliding (trailing, open at its far end; default), closed (trailing, both ends) or fixed (whole windows of the clock)',
  ),
  setting('positions', '--positions <n>', 'DeFi positions per address (default 10)'),
  setting('collections', '--collections <n>', 'NFT collections per address (default 5)'),
  setting('nftsPerCollection', '--nfts-per-collection <n>', 'NFTs per collection (default 3)'),
  setting('epochMs', '--epoch-ms <ms>', 'how long positions and NFTs stay constant (default 900000)'),
  setting(
    'valuationMs',
    '--valuation-ms <ms>',
    'within an epoch, values follow prices in steps of this (default 0: constant per epoch)',
  ),
  setting('clockOffsetMs', '--clock-offset-ms <ms>', 'world time = now + this'),
  setting(
    'clockRate',
    '--clock-rate <rate>',
    'world milliseconds per real millisecond (default 1; 0 stops the world clock)',
  ),
  setting('fixedTime', '--fixed-time <time>', 'freeze the world time (ISO date-time or ms)'),
  setting(
    'realShapes',
    '--real-shapes',
    'answer with the shapes real answers show (numeric strings, duplicate ids, nested positions, { data } NFTs; default off)',
  ),
  setting(
    'habits',
    '--habits',
    'the living world: wallets change at the events of their habits (dormant, daily, hourly, bursty), recorded at /_simulator/changes (default off)',
  ),
];

export type SimulatorSettingKey = (typeof SIMULATOR_SETTINGS)[number]['key'];
