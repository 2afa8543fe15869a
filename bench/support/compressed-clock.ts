import { cronMatcher, type CronMatcher } from '../../src/scheduler/cron-slots.ts';
import type { SchedulerClock } from '../../src/scheduler/scheduler-clock.ts';
import { sleep } from '../../src/runtime/sleep.ts';

const MINUTE = 60_000;

/**
 * A SchedulerClock on compressed time: once run() is called, one simulated minute passes every
 * `realMsPerMinute` of real time, continuously. At each minute it fires the cron slots of that
 * minute one after the other (in the order the scheduler registered them, each awaited, as the test's
 * fake clock does), with now() held at the minute while they fire, so that a tick is always its
 * slot's minute even when enqueueing it takes longer than a compressed minute. A minute that comes
 * while the previous one's slots are still firing fires late, never skipped. Timers (every) run at
 * the same compression: `every(10_000)` fires every 10 simulated seconds.
 */
export interface CompressedClock extends SchedulerClock {
  /** Starts the time: the simulated start now, then minute after minute. */
  run(): void;
  /** The simulated time (epoch ms) at a real time (performance.now(), default now): continuous, never held. */
  simulatedTime(realMs?: number): number;
  /** Resolves at the real time when the simulated time reaches `time`. */
  sleepUntil(time: number): Promise<void>;
  /** Resolves once no slot is firing. */
  idle(): Promise<void>;
  /** The most a minute's slots started late, in real milliseconds. */
  maxLatenessMs(): number;
  /** Stops firing (a slot firing now finishes first) and clears the timers. */
  stop(): Promise<void>;
}

export function createCompressedClock(start: Date, realMsPerMinute: number): CompressedClock {
  const startMs = start.getTime();
  let realStart: number | undefined;
  let firing: number | undefined;
  let firingDone: Promise<void> = Promise.resolve();
  let loop: Promise<void> = Promise.resolve();
  const stopping = new AbortController();
  let latenessMs = 0;
  const slots = new Set<{ matcher: CronMatcher; fire: () => Promise<void> }>();
  const timers = new Set<NodeJS.Timeout>();

  const simulatedTime = (realMs = performance.now()) =>
    realStart === undefined ? startMs : startMs + ((realMs - realStart) * MINUTE) / realMsPerMinute;
  const realAt = (time: number) => realStart! + ((time - startMs) * realMsPerMinute) / MINUTE;
  const sleepUntil = async (time: number, signal?: AbortSignal) => {
    const wait = realStart === undefined ? 0 : realAt(time) - performance.now();
    if (wait > 0) await sleep(wait, signal);
  };

  async function fireMinutes(): Promise<void> {
    for (let minute = Math.floor(startMs / MINUTE) * MINUTE + MINUTE; !stopping.signal.aborted; minute += MINUTE) {
      try {
        await sleepUntil(minute, stopping.signal);
      } catch {
        return; // stopped
      }
      latenessMs = Math.max(latenessMs, performance.now() - realAt(minute));
      firing = minute;
      let done!: () => void;
      firingDone = new Promise((resolve) => (done = resolve));
      try {
        for (const slot of [...slots]) if (slot.matcher.matches(new Date(minute))) await slot.fire();
      } finally {
        firing = undefined;
        done();
      }
    }
  }

  return {
    now: () => new Date(firing ?? simulatedTime()),
    onSlot(expression, _name, fire) {
      const slot = { matcher: cronMatcher(expression), fire };
      slots.add(slot);
      return { stop: async () => void slots.delete(slot) };
    },
    every(ms, fire) {
      // At least 10 ms: a timer of a few simulated seconds must not keep the event loop busy.
      const timer = setInterval(fire, Math.max(10, (ms * realMsPerMinute) / MINUTE));
      timers.add(timer);
      return {
        stop: () => {
          clearInterval(timer);
          timers.delete(timer);
        },
      };
    },
    run() {
      if (realStart !== undefined) return;
      realStart = performance.now();
      loop = fireMinutes();
      // stop() rethrows a failure of a slot; until then it must not count as unhandled.
      loop.catch(() => {});
    },
    simulatedTime,
    sleepUntil: (time) => sleepUntil(time),
    idle: () => firingDone,
    maxLatenessMs: () => latenessMs,
    async stop() {
      stopping.abort();
      for (const timer of timers) clearInterval(timer);
      timers.clear();
      await loop;
    },
  };
}
