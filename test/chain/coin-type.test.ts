import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { normalizeCoinType, shortCoinType } from '../../src/chain/coin-type.js';

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

  it('gives the short spelling back', () => {
    expect(shortCoinType(SUI_LONG)).toBe('0x2::sui::SUI');
  });
});
