import { describe, expect, it } from 'vitest';
import {
  figureCell,
  figureText,
  formatPercent,
  formatQuantity,
  formatUsd,
  formatUsdPrice,
  idText,
  shortId,
} from '../../src/ops/figures.ts';

describe('formatUsd', () => {
  it('writes money to the cent, grouped by thousands', () => {
    expect(formatUsd('472051.085069234447229705')).toBe('$472,051.09');
    expect(formatUsd('352852.12410677816731453213770195182588')).toBe('$352,852.12');
    expect(formatUsd('1')).toBe('$1.00');
    expect(formatUsd('999.995')).toBe('$1,000.00');
  });

  it('writes zero and a value that rounds to zero as $0.00, whatever its sign', () => {
    expect(formatUsd('0')).toBe('$0.00');
    expect(formatUsd('0.000000000000000000')).toBe('$0.00');
    expect(formatUsd('-0.000000000000000001')).toBe('$0.00');
    expect(formatUsd('0.004')).toBe('$0.00');
  });

  it('writes negatives in the accounting style', () => {
    expect(formatUsd('-1234.567')).toBe('($1,234.57)');
    expect(formatUsd('-0.005')).toBe('($0.01)');
  });

  it('keeps every digit of a huge value (no float on the way)', () => {
    expect(formatUsd('123456789012345678901234567890.125')).toBe('$123,456,789,012,345,678,901,234,567,890.13');
    expect(formatUsd('-98765432109876543210.994')).toBe('($98,765,432,109,876,543,210.99)');
  });

  it('returns text that is not a number as it is', () => {
    expect(formatUsd('NaN')).toBe('NaN');
  });
});

describe('formatQuantity', () => {
  it('keeps six significant digits of small values', () => {
    expect(formatQuantity('0.0000123456', 'SUI')).toBe('0.0000123456 SUI');
    expect(formatQuantity('0.000012345678912')).toBe('0.0000123457');
    expect(formatQuantity('3.412345678')).toBe('3.41235');
    expect(formatQuantity('0.5')).toBe('0.5');
  });

  it('drops trailing zeros and keeps every integer digit', () => {
    expect(formatQuantity('1.500000')).toBe('1.5');
    expect(formatQuantity('2.000')).toBe('2');
    expect(formatQuantity('1234.56789')).toBe('1,234.57');
    expect(formatQuantity('123456789.987')).toBe('123,456,790');
    expect(formatQuantity('123456789012345678901234567890.5')).toBe('123,456,789,012,345,678,901,234,567,891');
  });

  it('writes a tiny value with an exponent, and zero as 0', () => {
    expect(formatQuantity('0.000000000001234567')).toBe('1.23457e-12');
    expect(formatQuantity('1e-30')).toBe('1e-30');
    expect(formatQuantity('0')).toBe('0');
    expect(formatQuantity('-0.000')).toBe('0');
  });

  it('signs negatives', () => {
    expect(formatQuantity('-0.0000123456', 'SUI')).toBe('-0.0000123456 SUI');
    expect(formatQuantity('-1234567.4')).toBe('-1,234,567');
  });
});

describe('formatUsdPrice', () => {
  it('is a quantity in dollars', () => {
    expect(formatUsdPrice('3.4123456')).toBe('$3.41235');
    expect(formatUsdPrice('0.0000123456')).toBe('$0.0000123456');
    expect(formatUsdPrice('-2.5')).toBe('-$2.5');
    expect(formatUsdPrice('0')).toBe('$0');
  });
});

describe('formatPercent', () => {
  it('has two decimals below 10 % and one from there', () => {
    expect(formatPercent(1.2345)).toBe('1.23 %');
    expect(formatPercent(12.345)).toBe('12.3 %');
    expect(formatPercent(-12.35)).toBe('-12.4 %');
    expect(formatPercent('1234.56')).toBe('1,234.6 %');
  });

  it('signs a rise when asked, and never writes -0.00', () => {
    expect(formatPercent(2.5, { signed: true })).toBe('+2.50 %');
    expect(formatPercent(-0.001, { signed: true })).toBe('0.00 %');
    expect(formatPercent(0)).toBe('0.00 %');
    expect(formatPercent(0.0000001)).toBe('0.00 %');
  });
});

describe('figureCell and figureText', () => {
  it('show the formatted figure with the exact one in the title, coloured by sign when asked', () => {
    expect(figureCell('-1234.5678', 'usd', { signed: true }).text).toBe(
      '<td class="num negative" title="-1234.5678">($1,234.57)</td>',
    );
    expect(figureCell('0.000', 'usd', { signed: true }).text).toBe('<td class="num" title="0.000">$0.00</td>');
    expect(figureCell(null, 'usd').text).toBe('<td class="num muted">—</td>');
    expect(figureText('0.0000123456', 'quantity', { unit: 'SUI' }).text).toBe(
      '<span title="0.0000123456">0.0000123456 SUI</span>',
    );
    expect(figureText('5', 'usd', { signed: true }).text).toBe('<span class="positive" title="5">$5.00</span>');
  });
});

describe('ids in tables', () => {
  it('shortens a long id, its whole in the title; short ids as they are', () => {
    const position = `0x1234${'5'.repeat(56)}abcd`;
    expect(position).toHaveLength(66);
    expect(shortId(position)).toBe('0x1234…abcd');
    expect(idText(position).text).toBe(`<span title="${position}">0x1234…abcd</span>`);
    expect(shortId(`${position}/input/1`)).toBe('0x1234…abcd/input/1');
    const coinType = '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC';
    expect(shortId(coinType)).toBe('0xdba3…00e7::usdc::USDC');
    expect(shortId('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM')).toBe('9WzDXwBbmk…9zYtAWWM');
    for (const short of ['0x2::sui::SUI', 'collateral', '12345']) {
      expect(shortId(short)).toBe(short);
      expect(idText(short).text).toBe(short);
    }
    expect(idText('<b>"x"</b>'.repeat(5)).text).not.toContain('<b>');
  });
});
