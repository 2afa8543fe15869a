import type { PricePoints, PriceRow, TokenRow } from '../db/schema/rows.ts';
import { keyProblem } from '../db/storable-text.ts';
import { priceValueProblem } from './price-plausibility.ts';
import type { DriftLog } from './schema-drift.ts';
import { readDecimal, readText } from './wire-fields.ts';

/**
 * The tokens and prices of one answer, each once: a token of a chain is one row whose seen times
 * span its entries; a price is one row per (chain, token, price time). Of repeated prices, a price
 * answer keeps the later entry (`repeated: 'later'`); prices harvested from other answers keep the
 * first (`'first'`), as the store keeps the first harvested price of a token and time.
 */
export class PricePointSet {
  private readonly tokens = new Map<string, TokenRow>();
  private readonly prices = new Map<string, PriceRow>();
  private readonly repeated: 'first' | 'later';

  constructor(repeated: 'first' | 'later') {
    this.repeated = repeated;
  }

  /** A token seen without a price (its lastPriceTime null), or with one (addPrice). */
  addToken(row: TokenRow): void {
    const key = `${row.chain}\u0000${row.coinType}`;
    const known = this.tokens.get(key);
    this.tokens.set(key, known ? mergeToken(known, row) : row);
  }

  addPrice(row: PriceRow, token: TokenRow): void {
    const key = `${row.chain}\u0000${row.coinType}\u0000${row.priceTime.getTime()}`;
    if (this.repeated === 'later' || !this.prices.has(key)) this.prices.set(key, row);
    this.addToken(token);
  }

  points(): PricePoints {
    return { tokens: [...this.tokens.values()], prices: [...this.prices.values()] };
  }
}

function mergeToken(known: TokenRow, row: TokenRow): TokenRow {
  return {
    coinType: row.coinType,
    chain: row.chain,
    symbol: row.symbol ?? known.symbol,
    decimals: row.decimals ?? known.decimals,
    firstSeenAt: known.firstSeenAt <= row.firstSeenAt ? known.firstSeenAt : row.firstSeenAt,
    lastSeenAt: latest(known.lastSeenAt, row.lastSeenAt),
    lastPriceTime:
      known.lastPriceTime && row.lastPriceTime
        ? latest(known.lastPriceTime, row.lastPriceTime)
        : (known.lastPriceTime ?? row.lastPriceTime),
  };
}

function latest(a: Date, b: Date): Date {
  return a >= b ? a : b;
}

/** A price's 24-hour-old figure (`last24hPrice`): one that cannot be a price is drift `implausible`, and null. */
export function readPrice24hAgo(raw: unknown, field: string, drifts: DriftLog): string | null {
  const value = readDecimal(raw, field, drifts).value;
  if (value === null || !priceValueProblem(value)) return value;
  drifts.record(field, 'implausible');
  return null;
}

/** A price's source names a price_sources row: one too long to be its key is drift, and null. */
export function readPriceSource(raw: unknown, field: string, drifts: DriftLog): string | null {
  const source = readText(raw, field, drifts).value;
  if (source === null || !keyProblem(source)) return source;
  drifts.record(field, 'oversized_key');
  return null;
}
