/** Events in the trailing window (now - windowMs, now], kept as a queue of times. */
export class SlidingWindow {
  private times: number[] = [];
  private head = 0;

  private readonly windowMs: number;

  constructor(windowMs = 1000) {
    this.windowMs = windowMs;
  }

  /** How many events fall in the window ending now. */
  count(now: number): number {
    this.evict(now);
    return this.times.length - this.head;
  }

  add(now: number): void {
    this.times.push(now);
  }

  /** Milliseconds until the oldest event in the window leaves it (0 when the window is empty). */
  msUntilSlotFrees(now: number): number {
    this.evict(now);
    const oldest = this.times[this.head];
    return oldest === undefined ? 0 : Math.max(0, oldest + this.windowMs - now);
  }

  clear(): void {
    this.times = [];
    this.head = 0;
  }

  private evict(now: number): void {
    const edge = now - this.windowMs;
    while (this.head < this.times.length && this.times[this.head]! <= edge) this.head++;
    if (this.head > 4096 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
