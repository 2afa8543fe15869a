import { cronMatcher, type CronMatcher } from '../../src/scheduler/cron-slots.ts';
import type { SchedulerClock } from '../../src/scheduler/scheduler-clock.ts';

const MINUTE = 60_000;

/**
 * A SchedulerClock that a test moves forward: advanceTo() fires, minute by minute, every cron slot
 * it passes (in the order the scheduler registered them, each awaited, as node-cron would fire
 * them without overlap) and then every timer once. The scheduler itself is the real one.
 */
export interface FakeSchedulerClock extends SchedulerClock {
  advanceTo(time: Date): Promise<void>;
}

export function createFakeSchedulerClock(start: Date): FakeSchedulerClock {
  let now = start.getTime();
  const slots = new Set<{ matcher: CronMatcher; fire: () => Promise<void> }>();
  const timers = new Set<() => void>();
  return {
    now: () => new Date(now),
    onSlot(expression, _name, fire) {
      const slot = { matcher: cronMatcher(expression), fire };
      slots.add(slot);
      return { stop: async () => void slots.delete(slot) };
    },
    every(_ms, fire) {
      timers.add(fire);
      return { stop: () => void timers.delete(fire) };
    },
    async advanceTo(time) {
      for (let minute = Math.floor(now / MINUTE) * MINUTE + MINUTE; minute <= time.getTime(); minute += MINUTE) {
        now = minute;
        for (const slot of [...slots]) if (slot.matcher.matches(new Date(minute))) await slot.fire();
      }
      now = time.getTime();
      for (const fire of [...timers]) fire();
    },
  };
}
