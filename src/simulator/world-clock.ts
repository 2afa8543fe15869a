import { InvalidInputError } from '../errors.ts';

/**
 * The simulator's world clock. World time runs from an anchor at `rate` world milliseconds per real
 * millisecond: 1 follows the wall clock (shifted by an offset), more compresses time (a 30-day soak in
 * hours), 0 stops it so that tests and virtual-time benchmarks set every instant themselves. Nothing
 * in the world reads the wall clock: its answers and its changes are functions of world time alone.
 */
export interface WorldClockState {
  worldTimeMs: number;
  /** World milliseconds per real millisecond. */
  rate: number;
}

/** What POST /_simulator/clock may set: a world time from now on and/or a rate (unset: kept). */
export interface WorldClockSetting {
  worldTimeMs?: number;
  rate?: number;
}

export const MAX_CLOCK_RATE = 1_000_000;

export class WorldClock {
  #anchorReal: number;
  #anchorWorld: number;
  #rate: number;
  private readonly realNow: () => number;

  /** `realNow`: the real time (the wall clock, or a fixed time that freezes the world). */
  constructor(realNow: () => number, offsetMs = 0, rate = 1) {
    this.realNow = realNow;
    this.#anchorReal = realNow();
    this.#anchorWorld = this.#anchorReal + offsetMs;
    this.#rate = checkRate(rate);
  }

  now(): number {
    return Math.floor(this.#anchorWorld + (this.realNow() - this.#anchorReal) * this.#rate);
  }

  /** World time = real time + ms, at rate 1 (the clock tests and benchmarks have always set). */
  setOffset(ms: number): void {
    if (!Number.isSafeInteger(ms)) throw new InvalidInputError('offsetMs must be an integer');
    this.#anchorReal = this.realNow();
    this.#anchorWorld = this.#anchorReal + ms;
    this.#rate = 1;
  }

  /** Moves the world to worldTimeMs now (if given) and runs it at `rate` from here (if given). */
  set({ worldTimeMs, rate }: WorldClockSetting): void {
    if (worldTimeMs !== undefined && !Number.isSafeInteger(worldTimeMs))
      throw new InvalidInputError('worldTimeMs must be an integer (ms since 1970)');
    const nextRate = rate === undefined ? this.#rate : checkRate(rate);
    const anchorWorld = worldTimeMs ?? this.now();
    this.#anchorReal = this.realNow();
    this.#anchorWorld = anchorWorld;
    this.#rate = nextRate;
  }

  state(): WorldClockState {
    return { worldTimeMs: this.now(), rate: this.#rate };
  }
}

function checkRate(rate: unknown): number {
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > MAX_CLOCK_RATE)
    throw new InvalidInputError(`rate must be a number from 0 to ${MAX_CLOCK_RATE}`);
  return rate;
}
