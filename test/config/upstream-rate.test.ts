import { describe, expect, it } from 'vitest';
import { MAX_RPS, parseUpstreamRate } from '../../src/config/upstream-rate.ts';

describe('parseUpstreamRate', () => {
  it('reads a quota as the service states it, per second, minute, hour or day', () => {
    expect(parseUpstreamRate('40/min')).toEqual({ requests: 40, periodMs: 60_000, rps: 40 / 60, label: '40/min' });
    expect(parseUpstreamRate('2/s')).toEqual({ requests: 2, periodMs: 1_000, rps: 2, label: '2/s' });
    expect(parseUpstreamRate('3600/h')).toEqual({ requests: 3600, periodMs: 3_600_000, rps: 1, label: '3600/h' });
    expect(parseUpstreamRate('10000/day')).toEqual({
      requests: 10_000,
      periodMs: 86_400_000,
      rps: 10_000 / 86_400,
      label: '10000/day',
    });
  });

  it('takes the long and short names of each period, in any case and spacing, and shows them one way', () => {
    for (const text of ['40/m', '40/minute', ' 40 / MIN ', '40/Min'])
      expect(parseUpstreamRate(text).label).toBe('40/min');
    for (const text of ['2/sec', '2/second', '2/S']) expect(parseUpstreamRate(text).label).toBe('2/s');
    expect(parseUpstreamRate('3600/hour').label).toBe('3600/h');
    expect(parseUpstreamRate('10000/d').label).toBe('10000/day');
  });

  it('reads a bare number as requests per second, as UPSTREAM_RPS did, fractions and exponents included', () => {
    expect(parseUpstreamRate('10')).toEqual({ requests: 10, periodMs: 1_000, rps: 10, label: '10/s' });
    expect(parseUpstreamRate('0.5/s').rps).toBe(0.5);
    // String(1e-7) is how the UPSTREAM_RPS alias reaches the parser.
    expect(parseUpstreamRate(String(1e-7))).toMatchObject({ rps: 1e-7, label: '1e-7/s' });
  });

  it('rejects anything else with an example, and never repeats the value', () => {
    for (const text of ['', 'fast', '40 per minute', '40/week', '/min', '40/', '-2/s', '1,000/h']) {
      expect(() => parseUpstreamRate(text), text).toThrow(/for example 40\/min, 2\/s, 3600\/h or 10000\/day/);
    }
    expect(() => parseUpstreamRate('0/min')).toThrow(/more than zero requests/);
    expect(() => parseUpstreamRate(`${MAX_RPS + 1}/s`)).toThrow(`must be at most ${MAX_RPS} requests per second`);
    expect(parseUpstreamRate(`${MAX_RPS}/s`).rps).toBe(MAX_RPS);
    expect(() => parseUpstreamRate('sk-live-4f2a')).not.toThrow(/sk-live/);
  });
});
