import { describe, expect, it } from 'vitest';
import {
  estimateChangeRate,
  MAX_COUNT,
  NO_EVIDENCE,
  observe,
  RECENT,
  type History,
} from '../../src/refresh/change-rate.ts';

/** A deterministic generator (mulberry32), so that every run sees the same histories. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EMPTY: History = { evidence: NO_EVIDENCE, recent: [] };

/**
 * `count` refreshes of a Poisson source of `rate` per hour, at irregular intervals (uniform between
 * a quarter and twice `meanHours`), each seeing whether a change happened since the previous one.
 */
function history(rate: number, meanHours: number, count: number, next: () => number) {
  let state = EMPTY;
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    const hours = meanHours * (0.25 + 1.75 * next());
    at += Math.round(hours * 3600);
    const changed = next() < 1 - Math.exp(-rate * hours) ? 1 : 0;
    state = observe(state, [at, Math.round(hours * 3600), changed]);
  }
  return { ...state, at };
}

describe('change-rate estimate', () => {
  it('starts from the prior (one change in 6 hours): a new target is visited often', () => {
    expect(estimateChangeRate(NO_EVIDENCE)).toBeCloseTo(1 / 6, 3);
  });

  it('falls with every quiet hour, and rises with each change', () => {
    const quiet = observe(EMPTY, [86_400, 86_400, 0]);
    // The prior's quarter of a change over 1.5 + 24 hours.
    expect(estimateChangeRate(quiet.evidence)).toBeCloseTo(0.25 / 25.5, 4);
    const changed = observe(EMPTY, [86_400, 86_400, 1]);
    expect(estimateChangeRate(changed.evidence)).toBeGreaterThan(estimateChangeRate(quiet.evidence));
  });

  // Documented in docs/quota.md: within a factor of 2 of the true rate for most histories of 64
  // refreshes whose intervals are near the mean time between changes or shorter.
  it.each([
    { rate: 1, meanHours: 0.25, within: 0.9 },
    { rate: 1 / 6, meanHours: 2, within: 0.9 },
    { rate: 1 / 24, meanHours: 6, within: 0.9 },
    { rate: 1 / 168, meanHours: 24, within: 0.75 },
  ])('recovers a rate of $rate per hour within 2x in $within of histories', ({ rate, meanHours, within }) => {
    const next = random(Math.round(rate * 1e6));
    const runs = 200;
    let close = 0;
    for (let run = 0; run < runs; run += 1) {
      const estimate = estimateChangeRate(history(rate, meanHours, 64, next).evidence);
      if (estimate >= rate / 2 && estimate <= rate * 2) close += 1;
    }
    expect(close / runs).toBeGreaterThanOrEqual(within);
  });

  it('follows a dormant target that wakes up within a few refreshes (a change point)', () => {
    const next = random(7);
    // Six weeks of daily refreshes of a wallet that changes every month...
    const dormant = history(1 / 720, 24, 42, next);
    expect(estimateChangeRate(dormant.evidence)).toBeLessThan(1 / 48);
    // ...then changes at every hourly refresh.
    let state: History = dormant;
    let at = dormant.at;
    const estimates: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      at += 3600;
      state = observe(state, [at, 3600, 1]);
      estimates.push(estimateChangeRate(state.evidence));
    }
    expect(estimates.at(-1)).toBeGreaterThan(0.5);
    expect(estimates[0]).toBeLessThan(estimates.at(-1)!);
  });

  it('keeps the last RECENT refreshes as they were, and the rest as a few numbers', () => {
    let state = EMPTY;
    for (let i = 1; i <= 500; i += 1) state = observe(state, [i * 3600, 3600, 0]);
    expect(state.recent).toHaveLength(RECENT);
    expect(state.recent[0]![0]).toBe((500 - RECENT + 1) * 3600);
    expect(state.evidence.changed).toEqual([]);
    // 500 quiet hours, an hour t hours old weighing 0.5^(t / 336): about 336 / ln 2 × (1 − 0.5^(500 / 336)) = 312.
    expect(state.evidence.quietHours).toBeCloseTo(312.3, 0);
  });
  /** A Poisson count of mean `mean`, by inversion. */
  const poisson = (mean: number, next: () => number) => {
    let k = 0;
    let p = Math.exp(-mean);
    let sum = p;
    const u = next();
    while (u > sum && k < 1000) {
      k += 1;
      p *= mean / k;
      sum += p;
    }
    return k;
  };

  it('reads how many changes a refresh saw: Poisson counts recover the rate within 2x in 9 of 10 histories', () => {
    // Counts are read as lower bounds (two changes of one position count once): where refreshes
    // see about one change each (λt near 1) the estimate runs high by half, which shortens the
    // intervals until they see fewer (docs/quota.md).
    const next = random(11);
    for (const { rate, meanHours } of [
      { rate: 1, meanHours: 0.25 },
      { rate: 1 / 6, meanHours: 2 },
      { rate: 1 / 24, meanHours: 6 },
    ]) {
      let close = 0;
      for (let run = 0; run < 100; run += 1) {
        let state = EMPTY;
        let at = 0;
        for (let i = 0; i < 64; i += 1) {
          const hours = meanHours * (0.25 + 1.75 * next());
          at += Math.round(hours * 3600);
          state = observe(state, [at, Math.round(hours * 3600), Math.min(MAX_COUNT, poisson(rate * hours, next))]);
        }
        const estimate = estimateChangeRate(state.evidence);
        if (estimate >= rate / 2 && estimate <= rate * 2) close += 1;
      }
      expect(close / 100, `rate ${rate}`).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('a wallet changing in bursts is taken at its rate of changes, not its rate of bursts', () => {
    // Five changes within an hour every five days (one change a day on average), refreshed every
    // 6 hours for four weeks: each burst shows as one refresh seeing five changes.
    let counted = EMPTY;
    let once = EMPTY;
    for (let i = 1; i <= 112; i += 1) {
      const seen = i % 20 === 0 ? 5 : 0;
      counted = observe(counted, [i * 21_600, 21_600, seen]);
      once = observe(once, [i * 21_600, 21_600, Math.min(seen, 1)]);
    }
    const rate = estimateChangeRate(counted.evidence);
    expect(rate).toBeGreaterThan(1 / 48);
    expect(rate).toBeLessThan(1 / 12);
    expect(rate).toBeGreaterThan(3 * estimateChangeRate(once.evidence));
  });

  it('reads evidence kept before counts were (changed refreshes without a count) as one change each', () => {
    const old = { at: 0, quietHours: 100, changed: [[4, 3] as [number, number]] };
    const counted = { at: 0, quietHours: 100, changed: [[4, 3, 1] as [number, number, number]] };
    expect(estimateChangeRate(old)).toBe(estimateChangeRate(counted));
    expect(estimateChangeRate({ ...counted, changed: [[4, 3, 4]] })).toBeGreaterThan(estimateChangeRate(old));
  });
});
