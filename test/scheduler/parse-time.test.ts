import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import { parseInterval, parseTime } from '../../src/scheduler/parse-time.ts';

const NOW = new Date('2026-11-21T12:34:56.789Z');
const at = (value: string) => parseTime('--from', value, NOW).toISOString();

describe('command-line times', () => {
  it('takes ISO 8601 with Z or an offset, a date as midnight UTC, now and times before now', () => {
    expect(at('2026-11-21T12:00:00Z')).toBe('2026-11-21T12:00:00.000Z');
    expect(at('2026-11-21T12:00Z')).toBe('2026-11-21T12:00:00.000Z');
    expect(at('2026-11-21t12:00:00.5z')).toBe('2026-11-21T12:00:00.500Z');
    expect(at('2026-11-21T12:00:00.123456Z')).toBe('2026-11-21T12:00:00.123Z');
    expect(at('2026-11-21T14:00:00+02:00')).toBe('2026-11-21T12:00:00.000Z');
    expect(at('2026-11-21T07:30-0430')).toBe('2026-11-21T12:00:00.000Z');
    expect(at('2026-01-01T00:30:00+01:00')).toBe('2025-12-31T23:30:00.000Z');
    expect(at('2026-11-21')).toBe('2026-11-21T00:00:00.000Z');
    expect(at('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    expect(at(' now ')).toBe(NOW.toISOString());
    expect(at('-7d')).toBe('2026-11-14T12:34:56.789Z');
    expect(at('-12h')).toBe('2026-11-21T00:34:56.789Z');
    expect(at('-30m')).toBe('2026-11-21T12:04:56.789Z');
    expect(at('-90s')).toBe('2026-11-21T12:33:26.789Z');
  });

  it.each([
    ['2026-02-31', /"2026-02-31": 2026-02 has 28 days/],
    ['2025-02-29', /2025-02 has 28 days/],
    ['2026-04-31T00:00:00Z', /2026-04 has 30 days/],
    ['2026-13-01', /there is no month 13/],
    ['2026-00-10', /there is no month 00/],
    ['2026-11-00', /2026-11 has 30 days/],
    ['2026-11-21T12:00:00', /a time needs its zone, Z or an offset such as \+02:00/],
    ['2026-11-21T24:00:00Z', /hours go to 23/],
    ['2026-11-21T12:60:00Z', /minutes and seconds to 59/],
    ['2026-11-21T12:00:60Z', /minutes and seconds to 59/],
    ['2026-11-21T12:00:00+24:00', /an offset goes to 23:59/],
    ['1969-12-31', /before 1970/],
    ['-99999999d', /before 1970/],
    ['1', /"1": expected/],
    ['2026', /"2026": expected/],
    ['1795480000', /expected/],
    ['yesterday', /expected/],
    ['7d', /expected/],
    ['-7w', /expected/],
    ['Sat, 21 Nov 2026 12:00:00 GMT', /expected/],
    ['2026-11-21 12:00:00Z', /expected/],
    ['', /expected/],
  ])('refuses %j, with the reason and an example', (value, reason) => {
    let error: unknown;
    try {
      parseTime('--from', value, NOW);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    const message = (error as Error).message;
    expect(message).toMatch(reason);
    expect(message).toMatch(/^invalid --from ".*": /);
    expect(message).toContain('2026-11-21T12:00:00Z');
    expect(message).toContain('-7d');
  });

  it('keeps a hostile value out of the message', () => {
    expect(() => parseTime('--to', 'x'.repeat(100_000), NOW)).toThrow(/^invalid --to "x{64}…": expected/);
  });
});

describe('intervals', () => {
  it('read a number and a unit, up to ten years, naming the parameter when refused', () => {
    expect(parseInterval('1h')).toBe(3_600_000);
    expect(parseInterval('15m')).toBe(15 * 60_000);
    expect(parseInterval('3650d')).toBe(3650 * 86_400_000);
    for (const bad of ['', 'h', '0h', '1w', '-1h', '1.5h']) expect(() => parseInterval(bad)).toThrow(InvalidInputError);
    expect(() => parseInterval('3651d')).toThrow('invalid --interval "3651d": at most 3650d (ten years)');
    expect(() => parseInterval('100000000000000000000d', 'interval')).toThrow(
      'invalid interval "100000000000000000000d": at most 3650d',
    );
  });
});
