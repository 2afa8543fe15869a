import { describe, expect, it } from 'vitest';
import { Draws, significant } from '../../src/simulator/hash.ts';

describe('significant', () => {
  it('rounds to the given significant digits and prints as that decimal', () => {
    expect(significant(3.4177578748712345, 12)).toBe(3.41775787487);
    expect(significant(0.000123456789, 6)).toBe(0.000123457);
    expect(significant(-98765.4321, 6)).toBe(-98765.4);
    expect(significant(728713399127.3138, 6)).toBe(728713000000);
    expect(significant(0, 12)).toBe(0);
    for (let i = 0; i < 10_000; i++) {
      const value = Math.exp((i / 10_000 - 0.5) * 60);
      const digits = String(significant(value, 9))
        .split('e')[0]!
        .replace('.', '')
        .replace(/^0+/, '')
        .replace(/0+$/, '');
      expect(digits.length).toBeLessThanOrEqual(9);
    }
  });
});

describe('Draws', () => {
  it('give the same sequence for the same parts and hex strings of the asked length', () => {
    expect(new Draws('a', 1).hex(64)).toBe(new Draws('a', 1).hex(64));
    expect(new Draws('a', 1).hex(64)).not.toBe(new Draws('a', 2).hex(64));
    expect(new Draws('a').hex(40)).toMatch(/^[0-9a-f]{40}$/);
    expect(new Draws('a').hex(7)).toMatch(/^[0-9a-f]{7}$/);
  });
});
