import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import { parseUpstreamRate } from '../../src/config/upstream-rate.ts';
import {
  backfillConsent,
  backfillTimes,
  describeBackfillEstimate,
  estimateBackfill,
  parseBackfillInterval,
  planBackfill,
} from '../../src/scheduler/backfill-plan.ts';
import { coin } from '../support/coins.ts';

const HOUR = 3_600_000;

describe('backfill planning', () => {
  it('includes both ends', () => {
    const times = backfillTimes(new Date('2026-01-01T00:00:00Z'), new Date('2026-01-02T00:00:00Z'), HOUR);
    expect(times).toHaveLength(25);
    expect(times[24]!.toISOString()).toBe('2026-01-02T00:00:00.000Z');
    expect(() => backfillTimes(new Date('2026-01-02Z'), new Date('2026-01-01Z'), HOUR)).toThrow(/--from/);
  });

  it('asks only for what is missing, in batches of at most 50, with deterministic ids', () => {
    const coins = Array.from({ length: 120 }, (_, i) => coin(i + 1));
    const times = backfillTimes(new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T02:00:00Z'), HOUR);
    const stored = new Map<string, Set<number>>();
    // Every coin stored at 01:00 (a sample 10 minutes into the step counts), coin 1 also at 00:00.
    for (const c of coins) stored.set(c, new Set([times[1]!.getTime() + 10 * 60_000]));
    stored.get(coin(1))!.add(times[0]!.getTime());

    const plan = planBackfill(coins, times, HOUR, stored);
    expect(plan.skipped).toBe(121);
    expect(plan.byTick.get(times[1]!.getTime())).toBeUndefined();
    const at0 = plan.jobs.filter((job) => job.data.tick === times[0]!.toISOString());
    expect(at0.flatMap((job) => job.data.coinTypes).sort()).toEqual(coins.slice(1).sort());
    expect(
      plan.jobs.every((job) => job.data.coinTypes.length <= 50 && job.data.backfill && job.data.at === job.data.tick),
    ).toBe(true);
    expect(plan.jobs.flatMap((job) => job.data.coinTypes)).toHaveLength(119 + 120);
    expect(plan.jobs.every((job) => !job.opts.jobId.includes(':'))).toBe(true);

    const again = planBackfill(coins, times, HOUR, stored);
    expect(again.jobs.map((job) => job.opts.jobId)).toEqual(plan.jobs.map((job) => job.opts.jobId));
  });

  it('refuses a backfill interval finer than the upstream resolves (1m)', () => {
    expect(parseBackfillInterval('1m')).toBe(60_000);
    expect(parseBackfillInterval('60s')).toBe(60_000);
    expect(parseBackfillInterval('1h')).toBe(HOUR);
    for (const fine of ['30s', '59s', '1s'])
      expect(() => parseBackfillInterval(fine)).toThrow(
        new InvalidInputError(
          `invalid --interval "${fine}": below 1m, the upstream's useful resolution (prices are minute samples); use 1m or more`,
        ),
      );
    expect(() => parseBackfillInterval('1w')).toThrow(/expected a number and a unit/);
  });

  it('counts the requests as steps x batches of 50 tokens, and says how long they take at the quota', () => {
    const estimate = estimateBackfill(10_081, 120, 30_000);
    expect(estimate).toEqual({ steps: 10_081, coinTypes: 120, batches: 3, planned: 30_243, requests: 30_000 });
    expect(describeBackfillEstimate(estimate, parseUpstreamRate('40/min'))).toEqual([
      'backfill plan: 10,081 step(s) x 3 batch(es) of up to 50 tokens (120 token(s)) = 30,243 request(s); 243 already stored, 30,000 to send',
      'at 40/min (UPSTREAM_RATE) that takes at least 12 h 30 min, longer while scheduled requests share the quota',
    ]);
    expect(describeBackfillEstimate(estimateBackfill(4, 1, 4), parseUpstreamRate('2/s'))[1]).toBe(
      'at 2/s (UPSTREAM_RATE) that takes at least 2 s, longer while scheduled requests share the quota',
    );
    expect(describeBackfillEstimate(estimateBackfill(100_000, 50, 100_000), parseUpstreamRate('40/min'))[1]).toMatch(
      /at least 1 d 17 h/,
    );
  });

  it('starts above 10,000 requests only with --yes or when a person at a terminal agrees', () => {
    expect(backfillConsent(10_000, { yes: false, terminal: false })).toBe('go');
    expect(backfillConsent(10_001, { yes: false, terminal: false })).toBe('refuse');
    expect(backfillConsent(10_001, { yes: false, terminal: true })).toBe('ask');
    expect(backfillConsent(10_001, { yes: true, terminal: false })).toBe('go');
    expect(backfillConsent(1_000_000, { yes: true, terminal: true })).toBe('go');
  });
});
