import { describe, expect, it } from 'vitest';
import { sumDecimals, toDecimalString, UnreadablePayloadError } from '../../src/normalize/index.ts';

describe('toDecimalString', () => {
  it.each([
    [1234.5, '1234.5'],
    ['1234.5', '1234.5'],
    [1e-9, '0.000000001'],
    ['1E-9', '0.000000001'],
    [123456789012.12346, '123456789012.12346'],
    ['123456789012.123456789012345678', '123456789012.123456789012345678'],
    [1e21, '1000000000000000000000'],
    ['-0.125', '-0.125'],
    ['+7', '7'],
    [' 3.50 ', '3.5'],
    [0, '0'],
  ])('keeps %j exact as %s', (value, expected) => {
    expect(toDecimalString(value)).toBe(expected);
  });

  it('gives null for null and undefined, never zero', () => {
    expect(toDecimalString(null)).toBeNull();
    expect(toDecimalString(undefined)).toBeNull();
  });

  it('refuses absurd exponents', () => {
    expect(() => toDecimalString('1e100000')).toThrow(UnreadablePayloadError);
  });
});

describe('sumDecimals', () => {
  it('adds exactly', () => {
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimals(['123456789012.12346', '0.000000001'])).toBe('123456789012.123460001');
    expect(sumDecimals([])).toBe('0');
  });

  it('is unknown when one value is unknown', () => {
    expect(sumDecimals(['1', null])).toBeNull();
  });
});
