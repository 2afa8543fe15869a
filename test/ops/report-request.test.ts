import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import { parseReportFormat, portfolioSteps, priceBucketStarts, reportRange } from '../../src/ops/report-request.ts';

const now = new Date('2026-11-21T12:34:56Z');
const DAY = 86_400_000;

describe('reportRange', () => {
  it('defaults to the 30 days up to now, every day', () => {
    const range = reportRange({}, now);
    expect(range).toEqual({ from: new Date(now.getTime() - 30 * DAY), to: now, intervalMs: DAY, interval: '1d' });
    expect(portfolioSteps(range)).toBe(31);
    expect(priceBucketStarts(range)).toBe(30);
  });

  it('takes 30 days before a given --to', () => {
    const to = new Date('2026-11-01T00:00:00Z');
    expect(reportRange({ to, interval: '1h' }, now)).toMatchObject({ from: new Date('2026-10-02T00:00:00Z'), to });
  });

  it('refuses --from after --to, and an unknown interval', () => {
    expect(() =>
      reportRange({ from: new Date('2026-11-02T00:00:00Z'), to: new Date('2026-11-01T00:00:00Z') }, now),
    ).toThrow('--from 2026-11-02T00:00:00.000Z is after --to 2026-11-01T00:00:00.000Z');
    for (const interval of ['1w', 'daily', '0h', '']) {
      expect(() => reportRange({ interval }, now)).toThrow(InvalidInputError);
    }
    expect(() => reportRange({ interval: 'fortnight' }, now)).toThrow('invalid --interval "fortnight"');
  });

  it('counts both ends of a portfolio, and [from, to) for prices (a shorter last bucket included)', () => {
    const range = reportRange(
      { from: new Date('2026-11-21T00:00:00Z'), to: new Date('2026-11-21T10:30:00Z'), interval: '1h' },
      now,
    );
    expect(portfolioSteps(range)).toBe(11);
    expect(priceBucketStarts(range)).toBe(11);
    const exact = reportRange(
      { from: new Date('2026-11-21T00:00:00Z'), to: new Date('2026-11-22T00:00:00Z'), interval: '1h' },
      now,
    );
    expect(portfolioSteps(exact)).toBe(25);
    expect(priceBucketStarts(exact)).toBe(24);
  });

  it('refuses an empty price range and too many steps', () => {
    const instant = reportRange({ from: now, to: now }, now);
    expect(portfolioSteps(instant)).toBe(1);
    expect(() => priceBucketStarts(instant)).toThrow('a price report needs a range');
    const long = reportRange({ from: new Date('2020-01-01T00:00:00Z'), to: now, interval: '1m' }, now);
    expect(() => portfolioSteps(long)).toThrow(/rows is more than 100000/);
    expect(() => priceBucketStarts(long)).toThrow(/intervals per token is more than 1000000/);
  });
});

describe('parseReportFormat', () => {
  it('knows csv, json and html', () => {
    expect(parseReportFormat('CSV')).toBe('csv');
    expect(parseReportFormat('html')).toBe('html');
    expect(() => parseReportFormat('xlsx')).toThrow('unknown --format "xlsx": expected one of csv, json, html');
  });
});
