/**
 * How an upstream counts requests against its limit, each convention a real service might use:
 * `sliding` (now - windowMs, now], `closed` [now - windowMs, now], or `fixed`, the calendar window
 * now is in: [k × windowMs, (k + 1) × windowMs) of the epoch, so a per-minute one starts each minute.
 */
export type WindowKind = 'sliding' | 'closed' | 'fixed';
export const WINDOW_KINDS = ['sliding', 'closed', 'fixed'] as const;

/** Events in the window at `now` (epoch milliseconds), kept as a queue of times. */
export class RequestWindow {
  private times: number[] = [];
  private head = 0;

  private readonly windowMs: number;
  private readonly kind: WindowKind;

  constructor(windowMs = 1000, kind: WindowKind = 'sliding') {
    this.windowMs = windowMs;
    this.kind = kind;
  }

  /** How many events the window at `now` counts. */
  count(now: number): number {
    this.evict(now);
    return this.times.length - this.head;
  }

  add(now: number): void {
    this.times.push(now);
  }

  /** Milliseconds until the window at `now` counts one event fewer (0 when it counts none). */
  msUntilSlotFrees(now: number): number {
    this.evict(now);
    const oldest = this.times[this.head];
    if (oldest === undefined) return 0;
    if (this.kind === 'fixed') return this.windowStart(now) + this.windowMs - now;
    return Math.max(0, oldest + this.windowMs - now);
  }

  clear(): void {
    this.times = [];
    this.head = 0;
  }

  private windowStart(now: number): number {
    return Math.floor(now / this.windowMs) * this.windowMs;
  }

  /** Drops the events the window at `now` no longer counts. */
  private evict(now: number): void {
    const counted =
      this.kind === 'fixed'
        ? (time: number) => time >= this.windowStart(now)
        : this.kind === 'closed'
          ? (time: number) => time >= now - this.windowMs
          : (time: number) => time > now - this.windowMs;
    while (this.head < this.times.length && !counted(this.times[this.head]!)) this.head++;
    if (this.head > 4096 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
