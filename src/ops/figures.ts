import Big from 'big.js';
import { shortCoinType } from '../chain/coin-type.ts';
import { html, type Html } from './html.ts';
import { groupThousands } from '../runtime/number-text.ts';

/**
 * Figures for people (status page, HTML reports) from the stores' exact decimal text, through big.js
 * so that a huge or tiny value rounds as written, never through a float. Non-numbers are kept.
 */

/** Significant digits of a price or an amount (never fewer than its integer digits). */
export const SIGNIFICANT_DIGITS = 6;
/** Below this, a price or an amount is written with an exponent: `1.5e-12` rather than twelve zeros. */
const EXPONENT_BELOW = new Big('1e-9');

function parse(value: string): Big | undefined {
  try {
    return new Big(value.trim());
  } catch {
    return undefined;
  }
}

/** "1.500" -> "1.5", "2.000" -> "2". */
function trimZeros(fixed: string): string {
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** USD to the cent: `$472,051.09`, a negative as `($1,234.56)`, one that rounds to zero as `$0.00`. */
export function formatUsd(value: string): string {
  const big = parse(value);
  if (!big) return value;
  const cents = big.abs().toFixed(2, Big.roundHalfUp);
  const text = `$${groupThousands(cents)}`;
  return big.lt(0) && /[1-9]/.test(cents) ? `(${text})` : text;
}

/**
 * A price or a token amount: six significant digits, or every integer digit when there are more,
 * grouped by thousands, trailing zeros dropped (`0.0000123456`, `3.41`, `1,234,567`); below 1e-9 an
 * exponent (`1.23457e-12`). With a unit, after a space: `0.0000123456 SUI`.
 */
export function formatQuantity(value: string, unit?: string): string {
  const big = parse(value);
  if (!big) return unit ? `${value} ${unit}` : value;
  const magnitude = big.abs();
  let text: string;
  if (magnitude.eq(0)) text = '0';
  else if (magnitude.lt(EXPONENT_BELOW)) {
    const [mantissa, exponent] = magnitude.toExponential(SIGNIFICANT_DIGITS - 1, Big.roundHalfUp).split('e');
    text = `${trimZeros(mantissa!)}e${exponent}`;
  } else {
    const integerDigits = magnitude.e + 1;
    const rounded =
      integerDigits >= SIGNIFICANT_DIGITS
        ? magnitude.toFixed(0, Big.roundHalfUp)
        : magnitude.prec(SIGNIFICANT_DIGITS, Big.roundHalfUp).toFixed();
    text = groupThousands(trimZeros(rounded));
  }
  const signed = big.lt(0) && text !== '0' ? `-${text}` : text;
  return unit ? `${signed} ${unit}` : signed;
}

/** A price in USD of one unit of a token: `$3.41`, `$0.0000123456` (formatQuantity's digits). */
export function formatUsdPrice(value: string): string {
  const text = formatQuantity(value);
  return text.startsWith('-') ? `-$${text.slice(1)}` : parse(value) ? `$${text}` : value;
}

/** A percentage: `1.23 %`, `12.3 %`, `1,234.5 %`; signed shows `+` on a rise; never `-0.00 %`. */
export function formatPercent(percent: number | string, options: { signed?: boolean } = {}): string {
  const big = typeof percent === 'number' ? (Number.isFinite(percent) ? new Big(percent) : undefined) : parse(percent);
  if (!big) return `${String(percent)} %`;
  const decimals = big.abs().lt(10) ? 2 : 1;
  const fixed = big.abs().toFixed(decimals, Big.roundHalfUp);
  const zero = !/[1-9]/.test(fixed);
  const sign = zero ? '' : big.lt(0) ? '-' : options.signed ? '+' : '';
  return `${sign}${groupThousands(fixed)} %`;
}

/** A coin type as `0x2::sui::SUI`; as it is when it is no coin type. */
export function shortCoin(coinType: string): string {
  try {
    return shortCoinType(coinType);
  } catch {
    return coinType;
  }
}

/** Past this many characters an id is shortened in a page's tables. */
const ID_SHOWN = 24;

/**
 * An id as a table shows it: each long hex run as `0x1234…abcd` (a 66-character position id, the
 * address of a coin type, the rest of it kept); another long id as its start and end; short ids as
 * they are.
 */
export function shortId(id: string): string {
  const hexShortened = id.replace(/0x[0-9a-fA-F]{12,}/g, (hex) => `${hex.slice(0, 6)}…${hex.slice(-4)}`);
  if (hexShortened !== id || id.length <= ID_SHOWN) return hexShortened;
  return `${id.slice(0, 10)}…${id.slice(-8)}`;
}

/** An id, shortened (shortId), in a `<span>` whose title is the whole id (shown on hover, found by search). */
export function idText(id: string): Html {
  const short = shortId(id);
  return short === id ? html`${id}` : html`<span title="${id}">${short}</span>`;
}

/** How a figure is written: money, a price in USD, or a quantity (with its unit). */
const FORMATS = { usd: formatUsd, 'usd-price': formatUsdPrice, quantity: formatQuantity };
type FigureFormat = keyof typeof FORMATS;

/** The sign class a page colours a signed figure by: `negative`, `positive`, or none for zero. */
function signClass(value: string): '' | 'negative' | 'positive' {
  const big = parse(value);
  if (!big || big.eq(0)) return '';
  return big.lt(0) ? 'negative' : 'positive';
}

export interface FigureOptions {
  /** Colour the figure by its sign (PnL, changes). */
  signed?: boolean;
  /** The unit after a quantity (`SUI`). */
  unit?: string;
}

/** A figure in a `<span>`: formatted, with the exact text in its title; null is an em dash. */
export function figureText(value: string | null, format: FigureFormat, options: FigureOptions = {}): Html {
  if (value === null) return html`<span class="muted">—</span>`;
  const sign = options.signed ? signClass(value) : '';
  return html`<span${sign ? html` class="${sign}"` : ''} title="${value}">${FORMATS[format](value, options.unit)}</span>`;
}

/** A figure in a right-aligned table cell (class `num`), formatted, with the exact text in its title. */
export function figureCell(value: string | null, format: FigureFormat, options: FigureOptions = {}): Html {
  if (value === null) return html`<td class="num muted">—</td>`;
  const sign = options.signed ? signClass(value) : '';
  return html`<td class="num${sign ? ` ${sign}` : ''}" title="${value}">${FORMATS[format](value, options.unit)}</td>`;
}
