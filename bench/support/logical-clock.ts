/**
 * Logical time for a process of the soak (bench/scenarios/soak.ts): `Date.now()` and `new Date()`
 * answer the logical clock, which the soak sets at each logical minute and which runs at real speed
 * from there (so durations measured with Date stay real). Dates made before, and `instanceof Date`
 * checks of them, keep working: the replacement is a subclass that recognises every Date.
 * Timers, performance.now() and Redis's and Postgres's own clocks stay real (the soak says where
 * that matters: Redis expiries, Postgres now()).
 */
export interface LogicalClock {
  /** Sets the logical time (epoch ms) as of now; it runs on at real speed. */
  set(logicalMs: number): void;
  /** The logical time (epoch ms). */
  now(): number;
  /** The real time (epoch ms), for what the soak records about itself. */
  realNow(): number;
  /** Puts the real Date back. */
  uninstall(): void;
}

const RealDate = Date;

export function installLogicalClock(): LogicalClock {
  let offsetMs = 0;
  class LogicalDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + offsetMs);
      else super(...(args as [number]));
    }
    static override now(): number {
      return RealDate.now() + offsetMs;
    }
    static override [Symbol.hasInstance](value: unknown): boolean {
      return value instanceof RealDate;
    }
  }
  // Date() called as a function gives the time as a string: the logical one too.
  const callable = new Proxy(LogicalDate, {
    apply: () => new LogicalDate().toString(),
  });
  globalThis.Date = callable as DateConstructor;
  return {
    set(logicalMs) {
      offsetMs = logicalMs - RealDate.now();
    },
    now: () => RealDate.now() + offsetMs,
    realNow: () => RealDate.now(),
    uninstall() {
      globalThis.Date = RealDate;
    },
  };
}
