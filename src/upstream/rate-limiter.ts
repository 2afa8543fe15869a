import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Metrics } from '../ops/metrics.js';
import { sleep } from './sleep.js';

/**
 * One upstream request budget. Requests are paced, not burst: the limiter hands out start times
 * evenly spaced (GCRA with no burst allowance). A 429 calls pause(), which pushes every later start
 * past Retry-After.
 *
 * The spacing is (1000 ms + JITTER_ALLOWANCE_MS) / rps rather than 1000 / rps: a request reaches the
 * upstream a little after its start time (timer granularity, event-loop load, a Redis round trip),
 * by an amount that varies, and at 1000 / rps that variation alone puts rps + 1 or + 2 requests into
 * some trailing second of a strict sliding-window upstream. Each such 429 then costs a whole
 * Retry-After of the shared budget; the allowance costs about 2.5% of it (at 200/s: 195/s).
 */
export const JITTER_ALLOWANCE_MS = 25;

export interface RateLimiter {
  /** Resolves when the caller may send one request. Rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** No request starts (anywhere the budget is shared) until at least `ms` from now. */
  pause(ms: number): Promise<void>;
}

type RateLimiterMetrics = Pick<Metrics, 'rateLimitWaitSeconds'>;

/**
 * Where start slots come from. reserve() books the next free slot and says how long to wait for it;
 * confirm() is asked after that wait and books a new slot when a pause began meanwhile (0: go).
 */
interface SlotBook {
  reserve(): Promise<number>;
  confirm(): Promise<number>;
  pause(ms: number): Promise<void>;
}

function createRateLimiter(book: SlotBook, metrics?: RateLimiterMetrics): RateLimiter {
  return {
    async acquire(signal) {
      signal?.throwIfAborted();
      const started = performance.now();
      let waitMs = await withAbort(book.reserve(), signal);
      while (waitMs > 0) {
        await sleep(waitMs, signal);
        waitMs = await withAbort(book.confirm(), signal);
      }
      metrics?.rateLimitWaitSeconds.inc((performance.now() - started) / 1000);
    },
    pause: (ms) => book.pause(Math.max(0, ms)),
  };
}

/**
 * The budget shared by every process through one Redis key. All times are Redis TIME in
 * microseconds, so the processes' clocks never matter; each caller only sleeps the wait it is told.
 * Hash fields: `tat` (the next free start) and `paused` (no start before this).
 */
const SLOT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local tat = tonumber(redis.call('HGET', KEYS[1], 'tat')) or 0
local paused = tonumber(redis.call('HGET', KEYS[1], 'paused')) or 0
local mode = ARGV[1]
local wait = 0
if mode == 'pause' then
  local pauseEnd = now + tonumber(ARGV[2])
  if pauseEnd > paused then paused = pauseEnd end
  if pauseEnd > tat then tat = pauseEnd end
elseif mode == 'reserve' or now < paused then
  local start = math.max(now, tat, paused)
  tat = start + tonumber(ARGV[2])
  wait = start - now
else
  return 0
end
-- %.0f: Lua's tostring keeps only 14 significant digits, too few for microseconds since 1970.
redis.call('HSET', KEYS[1], 'tat', string.format('%.0f', tat), 'paused', string.format('%.0f', paused))
redis.call('PEXPIRE', KEYS[1], math.ceil((math.max(tat, paused) - now) / 1000) + 60000)
return math.ceil(wait)
`;
const SLOT_SCRIPT_SHA = createHash('sha1').update(SLOT_SCRIPT).digest('hex');

export interface SharedRateLimiterSettings {
  redis: Redis;
  /** The budget's key, e.g. `${QUEUE_PREFIX}:upstream:pace`; every process of one upstream uses the same. */
  key: string;
  rps: number;
  metrics?: RateLimiterMetrics;
  /** Default JITTER_ALLOWANCE_MS. */
  jitterAllowanceMs?: number;
}

export function createSharedRateLimiter({ redis, key, rps, metrics, jitterAllowanceMs }: SharedRateLimiterSettings): RateLimiter {
  const intervalMicros = String(1000 * intervalMs(rps, jitterAllowanceMs));
  const run = async (...args: string[]): Promise<number> => {
    try {
      return Number(await redis.evalsha(SLOT_SCRIPT_SHA, 1, key, ...args));
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return Number(await redis.eval(SLOT_SCRIPT, 1, key, ...args));
    }
  };
  const toMs = (micros: number) => micros / 1000;
  return createRateLimiter(
    {
      reserve: async () => toMs(await run('reserve', intervalMicros)),
      confirm: async () => toMs(await run('confirm', intervalMicros)),
      pause: async (ms) => void (await run('pause', String(Math.ceil(ms * 1000)))),
    },
    metrics,
  );
}

/** The same pacing within one process, for uses without Redis (a single CLI run). */
export function createLocalRateLimiter(
  rps: number,
  { metrics, jitterAllowanceMs }: { metrics?: RateLimiterMetrics; jitterAllowanceMs?: number } = {},
): RateLimiter {
  const interval = intervalMs(rps, jitterAllowanceMs);
  let tat = 0;
  let paused = 0;
  const book = (now: number) => {
    const start = Math.max(now, tat, paused);
    tat = start + interval;
    return start - now;
  };
  return createRateLimiter(
    {
      reserve: async () => book(performance.now()),
      confirm: async () => {
        const now = performance.now();
        return now < paused ? book(now) : 0;
      },
      pause: async (ms) => {
        const pauseEnd = performance.now() + ms;
        paused = Math.max(paused, pauseEnd);
        tat = Math.max(tat, pauseEnd);
      },
    },
    metrics,
  );
}

/** Milliseconds between two starts. */
function intervalMs(rps: number, jitterAllowanceMs = JITTER_ALLOWANCE_MS): number {
  if (!Number.isFinite(rps) || rps <= 0) throw new RangeError(`rate limit must be a positive number of requests per second, got ${rps}`);
  if (!(jitterAllowanceMs >= 0)) throw new RangeError(`jitter allowance must be 0 or more milliseconds, got ${jitterAllowanceMs}`);
  return (1000 + jitterAllowanceMs) / rps;
}

/** A Redis call cannot be cancelled, but the caller need not wait for it once aborted. */
function withAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      promise.catch(() => {});
      return reject(signal.reason);
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
