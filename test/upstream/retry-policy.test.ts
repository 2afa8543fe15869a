import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_AFTER_MS, backoffDelayMs, parseRetryAfterMs } from '../../src/upstream/http-client.ts';

describe('backoffDelayMs', () => {
  it('doubles from 250 ms for each retry, with full jitter below that ceiling', () => {
    const ceilings = [0, 1, 2, 3].map((retry) => backoffDelayMs(retry, () => 1));
    expect(ceilings).toEqual([250, 500, 1000, 2000]);
    expect(backoffDelayMs(3, () => 0)).toBe(0);
    expect(backoffDelayMs(3, () => 0.5)).toBe(1000);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delay-seconds', () => {
    expect(parseRetryAfterMs('3', now)).toBe(3000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('1.5', now)).toBe(1500);
    expect(parseRetryAfterMs(['2', '9'], now)).toBe(2000);
  });
  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 00:00:07 GMT', now)).toBe(7000);
    // Ten years ahead: read as it is (the client caps the pause, not the parser).
    expect(parseRetryAfterMs('Mon, 01 Jan 2035 00:00:00 GMT', now)).toBe(Date.parse('2035-01-01T00:00:00Z') - now);
    expect(parseRetryAfterMs('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });
  it('falls back to the default when absent or unreadable', () => {
    expect(DEFAULT_RETRY_AFTER_MS).toBe(1000); // the documented 1 s
    expect(parseRetryAfterMs(undefined, now)).toBe(DEFAULT_RETRY_AFTER_MS);
    expect(parseRetryAfterMs('', now)).toBe(DEFAULT_RETRY_AFTER_MS);
    expect(parseRetryAfterMs('soon', now)).toBe(DEFAULT_RETRY_AFTER_MS);
    expect(parseRetryAfterMs('-5', now)).toBe(DEFAULT_RETRY_AFTER_MS);
  });
});
