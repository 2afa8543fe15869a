import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import {
  MAX_COIN_TYPE_LENGTH,
  MAX_GENERIC_DEPTH,
  normalizeCoinType,
  shortCoinType,
} from '../../src/chain/coin-type.ts';

const SUI_LONG = `0x${'0'.repeat(63)}2::sui::SUI`;

describe('normalizeCoinType', () => {
  it('gives the short and the 64-hex spelling one normal form', () => {
    expect(normalizeCoinType('0x2::sui::SUI')).toBe(SUI_LONG);
    expect(normalizeCoinType(SUI_LONG)).toBe(SUI_LONG);
    expect(normalizeCoinType(' 0X2::sui::SUI '.replace('0X', '0x'))).toBe(SUI_LONG);
    expect(normalizeCoinType(`0x${'AB'.repeat(32)}::usdc::USDC`)).toBe(`0x${'ab'.repeat(32)}::usdc::USDC`);
  });

  it('normalizes type parameters too', () => {
    expect(normalizeCoinType('0xabc::pool::LP<0x2::sui::SUI>')).toBe(
      `0x${'abc'.padStart(64, '0')}::pool::LP<${SUI_LONG}>`,
    );
  });

  it('rejects a comma with a reason that names it', () => {
    expect(() => normalizeCoinType('0x1::lp::LP<0x2::sui::SUI,0x3::usdc::USDC>')).toThrow(/contains a comma/);
  });

  it.each([
    '',
    'SUI',
    '0x2::sui',
    '2::sui::SUI',
    '0xzz::sui::SUI',
    '0x2::sui::SUI<',
    '0x2::1bad::SUI',
    `0x${'1'.repeat(65)}::a::B`,
  ])('rejects %j', (input) => {
    expect(() => normalizeCoinType(input)).toThrow(InvalidInputError);
  });

  it('bounds the length and the generic nesting: a hostile value is an input error, never a RangeError', () => {
    const nested = (depth: number) => `${'0x2::pool::LP<'.repeat(depth)}0x2::sui::SUI${'>'.repeat(depth)}`;
    expect(normalizeCoinType(nested(MAX_GENERIC_DEPTH))).toContain('::LP<');
    expect(() => normalizeCoinType(nested(MAX_GENERIC_DEPTH + 1))).toThrow(
      new InvalidInputError(
        `invalid coin type "${nested(MAX_GENERIC_DEPTH + 1)}": type parameters nested more than 8 deep`,
      ),
    );
    // Deep enough to overflow the stack of a recursive parse, and far too long.
    const hostile = nested(100_000);
    const error = catchError(() => normalizeCoinType(hostile));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message).toMatch(/^invalid coin type "0x2::pool::LP<.{0,80}…": 1500013 characters, more than the 512/);
    expect(error.message.length).toBeLessThan(200);
    const longest = `0x2::m::${'N'.repeat(MAX_COIN_TYPE_LENGTH - 8)}`;
    expect(normalizeCoinType(longest)).toHaveLength(64 + 2 + MAX_COIN_TYPE_LENGTH - 3);
    expect(() => normalizeCoinType(`${longest}X`)).toThrow(/513 characters, more than the 512/);
    // Within the length, as deep as it fits.
    const deepShort = `${'0x2::a::B<'.repeat(45)}0x2::sui::SUI${'>'.repeat(45)}`;
    expect(deepShort.length).toBeLessThanOrEqual(MAX_COIN_TYPE_LENGTH);
    expect(() => normalizeCoinType(deepShort)).toThrow(/nested more than 8 deep/);
    // Unbalanced brackets deep down are still reported as such, not as a depth.
    expect(() => normalizeCoinType(`${'0x2::a::B<'.repeat(3)}0x2::sui::SUI`)).toThrow(/unbalanced < >/);
  });

  it('gives the short spelling back', () => {
    expect(shortCoinType(SUI_LONG)).toBe('0x2::sui::SUI');
  });
});

function catchError(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}
