/**
 * How an upstream counts requests against its limit, each convention a real service might use:
 * `sliding` (now - windowMs, now], `closed` [now - windowMs, now], or `fixed`, the calendar window
 * now is in: [k × windowMs, (k + 1) × windowMs) of the epoch, so a per-minute one starts each minute.
 */
export type WindowKind = 'sliding' | 'closed' | 'fixed';
export const WINDOW_KINDS = ['sliding', 'closed', 'fixed'] as const;

/** Events in the window at `now` (epoch milliseconds), kept as a queue of times. */
export function requestWindow(windowMs = 1000, kind: WindowKind = 'sliding') {
  let times: number[] = [];
  let head = 0;
  const windowStart = (now: number) => Math.floor(now / windowMs) * windowMs;

  /** Drops the events the window at `now` no longer counts. */
  const evict = (now: number) => {
    const counted =
      kind === 'fixed'
        ? (time: number) => time >= windowStart(now)
        : kind === 'closed'
          ? (time: number) => time >= now - windowMs
          : (time: number) => time > now - windowMs;
    while (head < times.length && !counted(times[head]!)) head++;
    if (head > 4096 && head * 2 > times.length) {
      times = times.slice(head);
      head = 0;
    }
  };

  return {
    /** How many events the window at `now` counts. */
    count(now: number): number {
      evict(now);
      return times.length - head;
    },

    add(now: number): void {
      times.push(now);
    },

    /** Milliseconds until the window at `now` counts one event fewer (0 when it counts none). */
    msUntilSlotFrees(now: number): number {
      evict(now);
      const oldest = times[head];
      if (oldest === undefined) return 0;
      if (kind === 'fixed') return windowStart(now) + windowMs - now;
      return Math.max(0, oldest + windowMs - now);
    },

    clear(): void {
      times = [];
      head = 0;
    },
  };
}
