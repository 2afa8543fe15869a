import { describe, expect, it } from 'vitest';
import { formatSpan } from '../../src/runtime/time-span.ts';

describe('formatSpan', () => {
  it('reads as seconds, minutes, hours or days, to the nearest second', () => {
    expect(formatSpan(42.4)).toBe('42 s');
    expect(formatSpan(59.6)).toBe('1 min 0 s');
    expect(formatSpan(303)).toBe('5 min 3 s');
    expect(formatSpan(7_800)).toBe('2 h 10 min');
    expect(formatSpan(3 * 86_400 + 4 * 3600 + 5)).toBe('3 d 4 h');
  });

  it('shows nothing below zero (a time already past)', () => {
    expect(formatSpan(-3)).toBe('0 s');
  });
});
