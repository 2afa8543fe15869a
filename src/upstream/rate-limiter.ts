import { createHash } from 'node:crypto';
import type { RedisClient } from '../runtime/redis-connection.ts';
import { sleep } from '../runtime/sleep.ts';

/**
 * The one upstream request budget, shared by every process through Redis. Requests are paced, not
 * burst: the limiter hands out evenly spaced start times (GCRA with no burst allowance), and a 429
 * calls pause(), which pushes every later start past Retry-After.
 *
 * The spacing is PACING_MARGIN wider than the quota: a request reaches the upstream a little after
 * its start, by an amount that varies, and spaced exactly at the quota, requests a millisecond apart
 * in their delays already put one too many into some window of a strict upstream. The 4 % margin
 * keeps every window (open or closed ends, fixed or sliding, per second or per minute) within quota.
 *
 * A process whose event loop was busy wakes up late and goes together with the starts booked after
 * it: so a start also needs room in the trailing window of the starts actually made (ceil(rps) per
 * that many intervals), and waits for it. A start whose confirmation came back late is confirmed
 * again (moved to now), as the request leaves that much later than recorded.
 *
 * Within a process, a start that comes due goes to the most urgent caller then waiting (lowest
 * priority number, first come first served among equals), so that under a small quota current prices
 * are not queued behind dozens of NFT requests. Between processes: first come first served.
 */
export const PACING_MARGIN = 0.04;

export interface RateLimiter {
  /**
   * Resolves with the next start that comes due while the caller is this process's most urgent waiter
   * (lower `priority` first, default 0); rejects with the signal's reason on abort.
   */
  acquire(signal?: AbortSignal, priority?: number): Promise<void>;
  /** No request starts anywhere until `ms` from now; `reason` is shown meanwhile (readPause). Resolves to its end. */
  pause(ms: number, reason: string): Promise<Date>;
}

/** A pause of the whole budget in force: until when, and why. */
export interface UpstreamPause {
  until: Date;
  reason: string;
}

/** A confirmation that took longer than this to come back is made again (see above). */
const LATE_CONFIRMATION_MS = 10;
const MAX_RECONFIRMATIONS = 3;

/**
 * Times are Redis TIME in microseconds, so the processes' clocks never matter. KEYS[1], a hash: `tat`
 * (the next free start), `paused` (no start before this), `reason`. KEYS[2], a sorted set: the starts
 * in the trailing window (one hash tag with KEYS[1], for Redis Cluster). ARGV: mode ('reserve',
 * 'confirm' or 'pause'), the interval (pause: its length), the window and its limit, the start's id
 * (pause: the reason). Returns the wait in microseconds (pause: its end, Unix microseconds).
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
  if pauseEnd > paused then
    paused = pauseEnd
    redis.call('HSET', KEYS[1], 'reason', ARGV[3])
  end
  if pauseEnd > tat then tat = pauseEnd end
elseif mode == 'reserve' or now < paused then
  local start = math.max(now, tat, paused)
  tat = start + tonumber(ARGV[2])
  wait = start - now
end
if mode == 'pause' or wait > 0 or mode == 'reserve' then
  -- %.0f: Lua's tostring keeps only 14 significant digits, too few for microseconds since 1970.
  redis.call('HSET', KEYS[1], 'tat', string.format('%.0f', tat), 'paused', string.format('%.0f', paused))
  redis.call('PEXPIRE', KEYS[1], math.ceil((math.max(tat, paused) - now) / 1000) + 60000)
end
if mode == 'pause' then return string.format('%.0f', paused) end
if wait > 0 then return math.ceil(wait) end
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
local others = redis.call('ZCARD', KEYS[2])
-- A start confirmed again (its reply came back late) does not count against itself.
if redis.call('ZSCORE', KEYS[2], ARGV[5]) then others = others - 1 end
if others >= tonumber(ARGV[4]) then
  local oldest = tonumber(redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2])
  return math.max(1, math.ceil(oldest + window - now))
end
redis.call('ZADD', KEYS[2], now, ARGV[5])
redis.call('PEXPIRE', KEYS[2], math.ceil(window / 1000) + 60000)
return 0
`;
const SLOT_SCRIPT_SHA = createHash('sha1').update(SLOT_SCRIPT).digest('hex');

export interface SharedRateLimiterSettings {
  redis: RedisClient;
  /** upstreamPaceKey: the same for every process of one upstream. */
  key: string;
  /** The quota in requests per second (UPSTREAM_RATE). */
  rps: number;
}

/** A caller of acquire() waiting for a start. */
interface Waiter {
  priority: number;
  grant(): void;
  fail(error: unknown): void;
}

export function createSharedRateLimiter({ redis, key, rps }: SharedRateLimiterSettings): RateLimiter {
  const interval = intervalMs(rps);
  // The trailing window of actual starts: as many as the quota starts in about a second.
  const limit = Math.ceil(rps);
  const slotArgs = [String(1000 * interval), String(1000 * interval * limit), String(limit)];
  const startsKey = `${key}:starts`;
  const run = async (...args: string[]): Promise<number> => {
    try {
      return Number(await redis.evalsha(SLOT_SCRIPT_SHA, 2, key, startsKey, ...args));
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return Number(await redis.eval(SLOT_SCRIPT, 2, key, startsKey, ...args));
    }
  };
  /** Milliseconds to wait for the start (0: go, recorded under `start`). */
  const slot = async (mode: 'reserve' | 'confirm', start: string) => (await run(mode, ...slotArgs, start)) / 1000;

  let sequence = 0;
  const prefix = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  /** Callers waiting, by priority, then in order of asking: the head gets the next start that comes due. */
  const waiters: Waiter[] = [];
  // One booking per waiter, oldest first, each with an abort of its own (never a caller's signal:
  // the start it books may go to another caller).
  const bookings: AbortController[] = [];

  /** Books one start and waits until it is confirmed (the mechanics of the header comment). */
  async function bookStart(signal: AbortSignal): Promise<void> {
    const start = `${prefix}-${++sequence}`;
    let asked = performance.now();
    let waitMs = await withAbort(slot('reserve', start), signal);
    for (let reconfirmed = 0; ;) {
      if (waitMs > 0) {
        await sleep(waitMs, signal);
      } else if (performance.now() - asked <= LATE_CONFIRMATION_MS || reconfirmed++ >= MAX_RECONFIRMATIONS) {
        return;
      }
      asked = performance.now();
      waitMs = await withAbort(slot('confirm', start), signal);
    }
  }

  /** A start for the waiter that has just joined, handed to whoever heads the list when it comes due. */
  function addBooking(): void {
    const booking = new AbortController();
    bookings.push(booking);
    bookStart(booking.signal).then(
      () => {
        // Given up after it was confirmed: a waiter left meanwhile, and no one counts on it.
        if (booking.signal.aborted) return;
        remove(bookings, booking);
        // Nobody waiting (possible only in a race with an abort): the start is dropped.
        waiters.shift()?.grant();
      },
      (error: unknown) => {
        if (booking.signal.aborted) return;
        // Redis failed it: one waiter fails with it, the least urgent, so that each has a booking.
        remove(bookings, booking);
        waiters.pop()?.fail(error);
      },
    );
  }

  return {
    acquire(signal, priority = 0) {
      signal?.throwIfAborted();
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          remove(waiters, waiter);
          reject(signal!.reason);
          // More bookings than waiters: the latest start is given up, so that the others keep the earliest.
          if (bookings.length > waiters.length) bookings.pop()!.abort(new Error('a waiter gave up'));
        };
        const waiter: Waiter = {
          priority,
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          fail: (error) => {
            signal?.removeEventListener('abort', onAbort);
            reject(error);
          },
        };
        // After every waiter of the same or a more urgent priority.
        const later = waiters.findIndex((other) => other.priority > priority);
        waiters.splice(later === -1 ? waiters.length : later, 0, waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
        addBooking();
      });
    },
    async pause(ms, reason) {
      const until = await run('pause', String(Math.ceil(Math.max(0, ms) * 1000)), reason);
      return new Date(until / 1000);
    },
  };
}

/** The pause in force on the budget at `key`, if any (for status, the status page and /metrics). */
export async function readPause(redis: RedisClient, key: string): Promise<UpstreamPause | undefined> {
  const [paused, reason] = (await redis.eval(READ_PAUSE_SCRIPT, 1, key)) as [string, string | null] | [];
  if (paused === undefined) return undefined;
  return { until: new Date(Number(paused) / 1000), reason: reason ?? 'unknown' };
}

/** The pause's end (microseconds) and reason while it is in force, by the same clock as SLOT_SCRIPT. */
const READ_PAUSE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local paused = tonumber(redis.call('HGET', KEYS[1], 'paused')) or 0
if paused <= now then return {} end
return {string.format('%.0f', paused), redis.call('HGET', KEYS[1], 'reason')}
`;

/** Milliseconds between two starts. */
function intervalMs(rps: number): number {
  if (!Number.isFinite(rps) || rps <= 0)
    throw new RangeError(`rate limit must be a positive number of requests per second, got ${rps}`);
  return ((1 + PACING_MARGIN) * 1000) / rps;
}

function remove<T>(items: T[], item: T): void {
  const index = items.indexOf(item);
  if (index !== -1) items.splice(index, 1);
}

/** A Redis call cannot be cancelled, but the caller need not wait for it once aborted. */
function withAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
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
