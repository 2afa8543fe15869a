import cron from 'node-cron';

/** The scheduler's time: the wall clock and node-cron (UTC), or a test's that runs an hour in seconds. */
export interface SchedulerClock {
  now(): Date;
  /** Calls `fire` at each slot of the five-field cron expression, never two at once, until stopped. */
  onSlot(expression: string, name: string, fire: () => Promise<void>): { stop(): Promise<void> };
  /** Calls `fire` every `ms` until stopped. */
  every(ms: number, fire: () => void): { stop(): void };
}

export const systemClock: SchedulerClock = {
  now: () => new Date(),
  onSlot(expression, name, fire) {
    const task = cron.schedule(expression, fire, { timezone: 'Etc/UTC', name, noOverlap: true });
    return { stop: async () => void (await task.destroy()) };
  },
  every(ms, fire) {
    const timer = setInterval(fire, ms);
    return { stop: () => clearInterval(timer) };
  },
};
