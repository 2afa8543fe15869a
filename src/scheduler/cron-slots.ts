import cron from 'node-cron';

// Pure cron-slot maths in UTC (node-cron's matcher, no timers): a tick's logical time is its slot,
// so two schedulers agree without talking to each other.
const MINUTE = 60_000;

export function cronMatcher(expression: string) {
  const task = cron.createTask(expression, () => {}, { timezone: 'Etc/UTC' });
  // createTask keeps every task in node-cron's registry until destroyed, and the scheduler asks for
  // matchers every slot (1,536 tasks a day leaked); a destroyed task still matches.
  void task.destroy();
  return { matches: (time: Date) => task.match(time) };
}

export type CronMatcher = ReturnType<typeof cronMatcher>;

export function floorToMinute(time: Date): Date {
  return new Date(Math.floor(time.getTime() / MINUTE) * MINUTE);
}

/** The slots in (after, until], oldest first, at most `limit` (the newest ones are kept). */
export function slotsBetween(matcher: CronMatcher, after: Date, until: Date, limit: number): Date[] {
  const slots: Date[] = [];
  const end = floorToMinute(until).getTime();
  for (let t = floorToMinute(after).getTime() + MINUTE; t <= end; t += MINUTE) {
    const slot = new Date(t);
    if (matcher.matches(slot)) {
      slots.push(slot);
      if (slots.length > limit) slots.shift();
    }
  }
  return slots;
}

/** The latest slot at or before `time`, looking back at most `lookbackMinutes`. */
export function slotAtOrBefore(matcher: CronMatcher, time: Date, lookbackMinutes = 60 * 24 * 31): Date | undefined {
  const start = floorToMinute(time).getTime();
  for (let i = 0; i <= lookbackMinutes; i += 1) {
    const slot = new Date(start - i * MINUTE);
    if (matcher.matches(slot)) return slot;
  }
  return undefined;
}

/** The first slot after `time`, looking ahead at most `lookaheadMinutes`. */
export function slotAfter(matcher: CronMatcher, time: Date, lookaheadMinutes = 60 * 24 * 31): Date | undefined {
  const start = floorToMinute(time).getTime();
  for (let i = 1; i <= lookaheadMinutes; i += 1) {
    const slot = new Date(start + i * MINUTE);
    if (matcher.matches(slot)) return slot;
  }
  return undefined;
}

/** 0 for the day's first slot (UTC), 1 for the second, ...: used for 'every Nth cycle' policies. */
export function slotIndexInDay(matcher: CronMatcher, slot: Date): number {
  const dayStart = Date.UTC(slot.getUTCFullYear(), slot.getUTCMonth(), slot.getUTCDate());
  let index = 0;
  for (let t = dayStart; t < slot.getTime(); t += MINUTE) {
    if (matcher.matches(new Date(t))) index += 1;
  }
  return index;
}

/** FORCE_REFRESH_EVERY policy: 0 never; N every Nth positions slot of the UTC day, starting with the first. */
export function shouldForceRefresh(matcher: CronMatcher, slot: Date, every: number): boolean {
  return every > 0 && slotIndexInDay(matcher, slot) % every === 0;
}
