import { describe, expect, it } from 'vitest';
import {
  addObservation,
  estimateChangeRate,
  MAX_OBSERVATIONS,
  type Observation,
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

/**
 * `count` refreshes of a Poisson source of `rate` per hour, at irregular intervals (uniform between
 * a quarter and twice `meanHours`), each seeing whether a change happened since the previous one.
 */
function history(rate: number, meanHours: number, count: number, next: () => number, startSeconds = 0) {
  let observations: Observation[] = [];
  let at = startSeconds;
  for (let i = 0; i < count; i += 1) {
    const hours = meanHours * (0.25 + 1.75 * next());
    at += Math.round(hours * 3600);
    const changed = next() < 1 - Math.exp(-rate * hours) ? 1 : 0;
    observations = addObservation(observations, [at, Math.round(hours * 3600), changed]);
  }
  return { observations, at };
}

describe('change-rate estimate', () => {
  it('starts from the prior (one change in 6 hours): a new target is visited often', () => {
    expect(estimateChangeRate([], 0)).toBeCloseTo(1 / 6, 3);
  });

  it('falls with every quiet hour, and rises with each change', () => {
    const quiet: Observation[] = [[86_400, 86_400, 0]];
    expect(estimateChangeRate(quiet, 86_400)).toBeCloseTo(1 / 30, 3);
    const changed: Observation[] = [[86_400, 86_400, 1]];
    expect(estimateChangeRate(changed, 86_400)).toBeGreaterThan(estimateChangeRate(quiet, 86_400));
  });

  // Documented in docs/quota.md: within a factor of 2 of the true rate for most histories of 64
  // refreshes whose intervals are near the mean time between changes or shorter.
  it.each([
    { rate: 1, meanHours: 0.25, within: 0.9 },
    { rate: 1 / 6, meanHours: 2, within: 0.85 },
    { rate: 1 / 24, meanHours: 6, within: 0.8 },
    { rate: 1 / 168, meanHours: 24, within: 0.6 },
  ])('recovers a rate of $rate per hour within 2x in $within of histories', ({ rate, meanHours, within }) => {
    const next = random(Math.round(rate * 1e6));
    const runs = 200;
    let close = 0;
    for (let run = 0; run < runs; run += 1) {
      const { observations, at } = history(rate, meanHours, MAX_OBSERVATIONS, next);
      const estimate = estimateChangeRate(observations, at);
      if (estimate >= rate / 2 && estimate <= rate * 2) close += 1;
    }
    expect(close / runs).toBeGreaterThanOrEqual(within);
  });

  it('follows a dormant target that wakes up within a few refreshes (a change point)', () => {
    const next = random(7);
    // Six weeks of daily refreshes of a wallet that changes every month...
    const dormant = history(1 / 720, 24, 42, next);
    const before = estimateChangeRate(dormant.observations, dormant.at);
    expect(before).toBeLessThan(1 / 48);
    // ...then changes at every hourly refresh.
    let { observations, at } = dormant;
    const estimates: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      at += 3600;
      observations = addObservation(observations, [at, 3600, 1]);
      estimates.push(estimateChangeRate(observations, at));
    }
    expect(estimates.at(-1)).toBeGreaterThan(0.5);
    // Without the change point, six weeks of quiet would hold it far below that.
    expect(estimates[0]).toBeLessThan(estimates.at(-1)!);
  });

  it('keeps at most MAX_OBSERVATIONS, the newest', () => {
    let observations: Observation[] = [];
    for (let i = 1; i <= MAX_OBSERVATIONS + 5; i += 1) observations = addObservation(observations, [i, 1, 0]);
    expect(observations).toHaveLength(MAX_OBSERVATIONS);
    expect(observations[0]![0]).toBe(6);
  });
});
