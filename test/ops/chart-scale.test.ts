import { describe, expect, it } from 'vitest';
import { extentOf, niceTicks, thinPerBucket, tickFormat, timeTicks } from '../../src/ops/chart-scale.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('extentOf', () => {
  it('finds the lowest and highest finite value of 100,000 values without spreading them', () => {
    const values = Array.from({ length: 100_000 }, (_, i) => Math.sin(i / 100) * 1000);
    values[73_456] = -5_000;
    values[12] = 9_999;
    // Math.min(...values) throws "Maximum call stack size exceeded" on an array this size.
    expect(extentOf(values)).toEqual({ low: -5_000, high: 9_999 });
  });

  it('skips gaps and non-finite values; none at all is undefined', () => {
    expect(extentOf([null, 3, Number.NaN, 1, null])).toEqual({ low: 1, high: 3 });
    expect(extentOf([null, null])).toBeUndefined();
    expect(extentOf([])).toBeUndefined();
  });
});

describe('thinPerBucket', () => {
  it("keeps each bucket's first, lowest, highest and last value: a one-point spike survives", () => {
    const points = Array.from({ length: 100_000 }, (_, i) => ({ time: i * 60_000, value: 100 + (i % 10) }));
    points[50_001] = { time: 50_001 * 60_000, value: 10_000 };
    points[70_003] = { time: 70_003 * 60_000, value: -10_000 };
    const thinned = thinPerBucket(points, 0, 99_999 * 60_000, 344);
    expect(thinned.length).toBeLessThanOrEqual(4 * 344);
    expect(thinned.length).toBeGreaterThan(344);
    expect(thinned).toContainEqual({ time: 50_001 * 60_000, value: 10_000 });
    expect(thinned).toContainEqual({ time: 70_003 * 60_000, value: -10_000 });
    expect(thinned[0]).toEqual(points[0]);
    expect(thinned.at(-1)).toEqual(points.at(-1));
    const times = thinned.map((point) => point.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('keeps a gap inside a bucket, so the line still breaks there', () => {
    const points = Array.from({ length: 1_000 }, (_, i) => ({ time: i, value: i === 500 ? null : 1 }));
    const thinned = thinPerBucket(points, 0, 999, 10);
    expect(thinned.filter((point) => point.value === null)).toEqual([{ time: 500, value: null }]);
  });

  it('returns a short series as it is', () => {
    const points = [
      { time: 0, value: 1 },
      { time: 1, value: null },
    ];
    expect(thinPerBucket(points, 0, 1, 10)).toEqual(points);
  });
});

describe('niceTicks', () => {
  it('widens the domain to round steps of 1, 2 or 5 times a power of ten', () => {
    expect(niceTicks(2_999.65, 569_930, 5)).toEqual({
      low: 0,
      high: 600_000,
      ticks: [0, 100_000, 200_000, 300_000, 400_000, 500_000, 600_000],
      step: 100_000,
    });
    expect(niceTicks(0.1, 0.9, 4).ticks).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('leaves no float dust in small steps', () => {
    const { ticks } = niceTicks(0.0000121, 0.0000129, 4);
    expect(ticks).toEqual([0.000012, 0.0000122, 0.0000124, 0.0000126, 0.0000128, 0.000013]);
  });

  it('draws a flat series across the middle of a widened range', () => {
    const { low, high, ticks } = niceTicks(5, 5, 4);
    expect(low).toBeLessThan(5);
    expect(high).toBeGreaterThan(5);
    expect(5 - low).toBeCloseTo(high - 5);
    expect(ticks).toContain(5);
    expect(niceTicks(0, 0, 4).ticks).toContain(0);
  });

  it('spans negative values', () => {
    expect(niceTicks(-1_234, 5_678, 4).ticks).toEqual([-2_000, 0, 2_000, 4_000, 6_000]);
  });
});

describe('tickFormat', () => {
  const labels = (ticks: number[], step: number, prefix = '$') => ticks.map(tickFormat(ticks, step, prefix));

  it('writes thousands as K, M, B, T by the largest tick, with the decimals the step needs', () => {
    expect(labels([0, 100_000, 200_000], 100_000)).toEqual(['$0', '$100K', '$200K']);
    expect(labels([0, 500_000, 1_000_000, 1_500_000], 500_000)).toEqual(['$0', '$0.5M', '$1.0M', '$1.5M']);
    expect(labels([0, 5_000_000, 10_000_000, 15_000_000], 5_000_000)).toEqual(['$0', '$5M', '$10M', '$15M']);
    expect(labels([10_000_000, 12_500_000, 15_000_000], 2_500_000)).toEqual(['$10.0M', '$12.5M', '$15.0M']);
    expect(labels([-2_000, 0, 2_000], 2_000)).toEqual(['-$2K', '$0', '$2K']);
    expect(labels([0, 200, 400], 200)).toEqual(['$0', '$200', '$400']);
    expect(labels([0, 1e13, 2e13], 1e13)).toEqual(['$0', '$10T', '$20T']);
  });

  it('keeps the digits of small steps', () => {
    expect(labels([0.0000122, 0.0000124], 0.0000002, '')).toEqual(['0.0000122', '0.0000124']);
    expect(labels([2, 2.5, 3], 0.5, '')).toEqual(['2.0', '2.5', '3.0']);
    expect(labels([250, 500, 750], 250)).toEqual(['$250', '$500', '$750']);
  });
});

describe('timeTicks', () => {
  it('labels a day with times of day on round hours', () => {
    const from = Date.parse('2026-11-20T12:34:00Z');
    const { ticks, label } = timeTicks(from, from + DAY, 6);
    expect(ticks.map(label)).toEqual(['18:00', '00:00', '06:00', '12:00']);
  });

  it('labels a month with dates, a year with months, ten years with years', () => {
    const month = timeTicks(Date.parse('2026-10-22T00:00:00Z'), Date.parse('2026-11-21T00:00:00Z'), 6);
    expect(month.ticks.map(month.label)).toEqual(['10-26', '11-02', '11-09', '11-16']);
    const year = timeTicks(Date.parse('2025-11-21T12:00:00Z'), Date.parse('2026-11-21T12:00:00Z'), 6);
    expect(year.ticks.map(year.label)).toEqual(['2026-01', '2026-03', '2026-05', '2026-07', '2026-09', '2026-11']);
    const decade = timeTicks(Date.parse('2016-06-01T00:00:00Z'), Date.parse('2026-06-01T00:00:00Z'), 6);
    expect(decade.ticks.map(decade.label)).toEqual(['2018', '2020', '2022', '2024', '2026']);
  });

  it('adds the date to times of day when the span is longer than a day', () => {
    const from = Date.parse('2026-11-19T12:00:00Z');
    const { ticks, label } = timeTicks(from, from + 2 * DAY, 6);
    expect(ticks.map(label)).toEqual(['11-19 12:00', '11-20 00:00', '11-20 12:00', '11-21 00:00', '11-21 12:00']);
  });

  it('keeps every tick inside the span, at most as many as asked', () => {
    for (const span of [5 * 60_000, HOUR, 7 * DAY, 90 * DAY, 365 * DAY, 4 * 365 * DAY]) {
      const from = Date.parse('2026-03-17T09:41:00Z');
      const { ticks } = timeTicks(from, from + span, 6);
      expect(ticks.length, String(span)).toBeGreaterThan(0);
      expect(ticks.length, String(span)).toBeLessThanOrEqual(6);
      expect(ticks.every((time) => time >= from && time <= from + span)).toBe(true);
    }
  });
});
