import { createHash } from 'node:crypto';
import type { RedisClient } from '../runtime/redis-connection.ts';
import { sleep } from '../runtime/sleep.ts';

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
 *
 * A process whose event loop was busy wakes up late for its start, and then goes together with the
 * starts booked after it: on a loaded machine, late starts bunch up by far more than the allowance.
 * So a start also needs room in the trailing window of the starts actually made (rps per 1000 ms +
 * the allowance, counted when each start is confirmed): a late start waits for that room instead.
 * The start is recorded when Redis confirms it; when the reply reaches a busy process late, the
 * request leaves that much later than recorded, so such a start is confirmed again (moved to now).
 *
 * Who gets a start: every caller books one as above, but within a process a start that comes due
 * goes to the most urgent caller then waiting (lowest priority number, first come first served
 * among equals), not necessarily to the one that booked it, so that under a small quota current
 * prices are not queued behind dozens of NFT requests. At equal priority this is the order of
 * booking, as before. Between processes the order stays first come first served.
 */
export const JITTER_ALLOWANCE_MS = 25;

export interface RateLimiter {
  /**
   * Resolves when the caller may send one request: with the next start that comes due while it is
   * this process's most urgent waiter (lower `priority` first, default 0; ties in order of asking).
   * Rejects with the signal's reason on abort.
   */
  acquire(signal?: AbortSignal, priority?: number): Promise<void>;
  /** No request starts (anywhere the budget is shared) until at least `ms` from now. */
  pause(ms: number): Promise<void>;
}

/**
 * Where start slots come from. reserve() books the next free slot and says how long to wait for it;
 * confirm() is asked after that wait: it books a new slot when a pause began meanwhile, and waits
 * for room in the window of actual starts (0: go, the start is recorded under `start`, or moved to
 * now when already recorded).
 */
interface SlotBook {
  reserve(start: string): Promise<number>;
  confirm(start: string): Promise<number>;
  pause(ms: number): Promise<void>;
}

/** A confirmation that took longer than this to come back is made again (see above). */
export const LATE_CONFIRMATION_MS = 10;
const MAX_RECONFIRMATIONS = 3;

/** A caller of acquire() waiting for a start. */
interface Waiter {
  priority: number;
  grant(): void;
  fail(error: unknown): void;
}

function createRateLimiter(book: SlotBook): RateLimiter {
  let sequence = 0;
  const prefix = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  /**
   * Callers waiting, by priority, then in order of asking (a newcomer goes after its equals): the
   * head gets the next start that comes due.
   */
  const waiters: Waiter[] = [];
  /**
   * One booking per waiter, each with an abort of its own (never a caller's signal: the start it
   * books may go to another caller), oldest first: the last holds the latest start.
   */
  const bookings: AbortController[] = [];

  /** Books one start and waits until it is confirmed (the mechanics of the header comment). */
  async function bookStart(signal: AbortSignal): Promise<void> {
    const start = `${prefix}-${++sequence}`;
    let asked = performance.now();
    let waitMs = await withAbort(book.reserve(start), signal);
    for (let reconfirmed = 0; ;) {
      if (waitMs > 0) {
        await sleep(waitMs, signal);
      } else if (performance.now() - asked <= LATE_CONFIRMATION_MS || reconfirmed++ >= MAX_RECONFIRMATIONS) {
        return;
      }
      asked = performance.now();
      waitMs = await withAbort(book.confirm(start), signal);
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

  /**
   * A waiter left: when there are more bookings than waiters, the latest start is given up (lost,
   * as an abort always lost one), so that the others keep the earliest.
   */
  function dropSurplusBooking(): void {
    if (bookings.length > waiters.length) bookings.pop()!.abort(new Error('a waiter gave up'));
  }

  return {
    acquire(signal, priority = 0) {
      signal?.throwIfAborted();
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          remove(waiters, waiter);
          reject(signal!.reason);
          dropSurplusBooking();
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
        waiters.splice(insertionIndex(waiters, priority), 0, waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
        addBooking();
      });
    },
    pause: (ms) => book.pause(Math.max(0, ms)),
  };
}

/** Where a new waiter of `priority` goes: after every waiter of the same or a lower number (binary search). */
function insertionIndex(waiters: Waiter[], priority: number): number {
  let low = 0;
  let high = waiters.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (waiters[middle]!.priority <= priority) low = middle + 1;
    else high = middle;
  }
  return low;
}

function remove<T>(items: T[], item: T): void {
  const index = items.indexOf(item);
  if (index !== -1) items.splice(index, 1);
}

/**
 * The budget shared by every process through two Redis keys. All times are Redis TIME in
 * microseconds, so the processes' clocks never matter; each caller only sleeps the wait it is told.
 * KEYS[1], a hash: `tat` (the next free start) and `paused` (no start before this). KEYS[2], a
 * sorted set: the starts made in the trailing window (at most `limit` of them). On Redis Cluster
 * both keys share one hash tag (upstreamPaceKey, src/queue/redis-keys.ts).
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
end
if mode == 'pause' or wait > 0 or mode == 'reserve' then
  -- %.0f: Lua's tostring keeps only 14 significant digits, too few for microseconds since 1970.
  redis.call('HSET', KEYS[1], 'tat', string.format('%.0f', tat), 'paused', string.format('%.0f', paused))
  redis.call('PEXPIRE', KEYS[1], math.ceil((math.max(tat, paused) - now) / 1000) + 60000)
end
if mode == 'pause' or wait > 0 then return math.ceil(wait) end
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
  /** The budget's key (upstreamPaceKey: `{chaintap:upstream}:pace`); every process of one upstream uses the same. */
  key: string;
  rps: number;
  /** Default JITTER_ALLOWANCE_MS. */
  jitterAllowanceMs?: number;
}

export function createSharedRateLimiter({
  redis,
  key,
  rps,
  jitterAllowanceMs,
}: SharedRateLimiterSettings): RateLimiter {
  const intervalMicros = String(1000 * intervalMs(rps, jitterAllowanceMs));
  const { windowMs, limit } = startWindow(rps, jitterAllowanceMs);
  const windowArgs = [String(1000 * windowMs), String(limit)];
  const startsKey = `${key}:starts`;
  const run = async (...args: string[]): Promise<number> => {
    try {
      return Number(await redis.evalsha(SLOT_SCRIPT_SHA, 2, key, startsKey, ...args));
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return Number(await redis.eval(SLOT_SCRIPT, 2, key, startsKey, ...args));
    }
  };
  const toMs = (micros: number) => micros / 1000;
  return createRateLimiter({
    reserve: async (start) => toMs(await run('reserve', intervalMicros, ...windowArgs, start)),
    confirm: async (start) => toMs(await run('confirm', intervalMicros, ...windowArgs, start)),
    pause: async (ms) => void (await run('pause', String(Math.ceil(ms * 1000)))),
  });
}

/** The same pacing within one process, for uses without Redis (a single CLI run). */
export function createLocalRateLimiter(
  rps: number,
  { jitterAllowanceMs }: { jitterAllowanceMs?: number } = {},
): RateLimiter {
  const interval = intervalMs(rps, jitterAllowanceMs);
  const { windowMs, limit } = startWindow(rps, jitterAllowanceMs);
  /**
   * Start id -> when it was confirmed, oldest first (a Map keeps insertion order; a confirmed-again start moves to the
   * end).
   */
  const starts = new Map<string, number>();
  let tat = 0;
  let paused = 0;
  const book = (now: number) => {
    const start = Math.max(now, tat, paused);
    tat = start + interval;
    return start - now;
  };
  /** 0 and the start recorded when the window of starts has room, else the wait for room. */
  const startNow = (start: string, now: number) => {
    for (const [id, time] of starts) {
      if (time > now - windowMs) break;
      starts.delete(id);
    }
    const others = starts.size - (starts.has(start) ? 1 : 0);
    if (others >= limit) return Math.max(0.001, starts.values().next().value! + windowMs - now);
    starts.delete(start);
    starts.set(start, now);
    return 0;
  };
  return createRateLimiter({
    reserve: async (start) => {
      const now = performance.now();
      const wait = book(now);
      return wait > 0 ? wait : startNow(start, now);
    },
    confirm: async (start) => {
      const now = performance.now();
      if (now < paused) return book(now);
      return startNow(start, now);
    },
    pause: async (ms) => {
      const pauseEnd = performance.now() + ms;
      paused = Math.max(paused, pauseEnd);
      tat = Math.max(tat, pauseEnd);
    },
  });
}

/**
 * The trailing window of actual starts: `limit` starts per `windowMs`, the same rate as the pacing
 * (rps per 1000 ms + the allowance), over a whole number of starts (ceil(rps) of them).
 */
function startWindow(rps: number, jitterAllowanceMs = JITTER_ALLOWANCE_MS): { windowMs: number; limit: number } {
  const limit = Math.ceil(rps);
  return { windowMs: ((1000 + jitterAllowanceMs) * limit) / rps, limit };
}

/** Milliseconds between two starts. */
function intervalMs(rps: number, jitterAllowanceMs = JITTER_ALLOWANCE_MS): number {
  if (!Number.isFinite(rps) || rps <= 0)
    throw new RangeError(`rate limit must be a positive number of requests per second, got ${rps}`);
  if (!(jitterAllowanceMs >= 0))
    throw new RangeError(`jitter allowance must be 0 or more milliseconds, got ${jitterAllowanceMs}`);
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
