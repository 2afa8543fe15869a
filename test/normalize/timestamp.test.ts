import { describe, expect, it } from 'vitest';
import { toTimestamp, UnreadablePayloadError } from '../../src/normalize/index.ts';

const NOON = '2026-11-21T12:00:00.000Z';

describe('toTimestamp', () => {
  it.each([
    ['seconds', 1795262400, NOON],
    ['fractional seconds', 1795262400.25, '2026-11-21T12:00:00.250Z'],
    ['milliseconds', 1795262400123, '2026-11-21T12:00:00.123Z'],
    ['microseconds', 1795262400123456, '2026-11-21T12:00:00.123Z'],
    ['nanoseconds as a string', '1795262400123456789', '2026-11-21T12:00:00.123Z'],
    ['seconds as a string', '1795262400', NOON],
    ['an early seconds value', 946684800, '2000-01-01T00:00:00.000Z'],
  ])('reads %s by magnitude', (_, value, iso) => {
    expect(toTimestamp(value).toISOString()).toBe(iso);
  });

  it.each([0, -1795262400, 1, 123456, 1e20, '1e30', 4102444800000 * 1e3 * 100])('throws on nonsense: %s', (value) => {
    expect(() => toTimestamp(value)).toThrow(UnreadablePayloadError);
  });
});
