import type { NormalizedTokenPrices, PriceRow } from '../../src/db/schema/rows.ts';
import { benchCoinType } from './scenario.ts';

/** Minute 0 of the generated price history. */
export const PRICES_START = Date.UTC(2026, 9, 1);
const SOURCES = ['pyth', 'cetus', 'birdeye', 'simulated'];
const SIGNIFICANT_DIGITS = [12, 12, 10, 9, 6];

/** Prices like the simulated upstream's: a walk around a per-token base, rounded to the token's digits. */
function price(token: number, minute: number): string {
  const base = 10 ** ((token % 7) - 3) * (1 + (token % 13) / 10);
  const value = base * (1 + 0.05 * Math.sin(minute / 97 + token) + 0.01 * Math.cos(minute / 7 + token * 3));
  return String(Number(value.toPrecision(SIGNIFICANT_DIGITS[token % SIGNIFICANT_DIGITS.length]!)));
}

/** The price rows of tokens [first, first + count) for minutes [minute, minute + minutes). */
export function priceRows(first: number, count: number, minute: number, minutes: number): PriceRow[] {
  const rows: PriceRow[] = [];
  for (let m = minute; m < minute + minutes; m++) {
    const priceTime = new Date(PRICES_START + m * 60_000);
    const fetchedAt = new Date(priceTime.getTime() + 2_500);
    for (let token = first; token < first + count; token++) {
      rows.push({
        coinType: benchCoinType(token),
        priceTime,
        price: price(token, m),
        price24hAgo: price(token, m - 1440),
        source: SOURCES[token % SOURCES.length]!,
        fetchedAt,
        chain: 'sui',
        origin: 'prices',
      });
    }
  }
  return rows;
}

/** What the price normalizer makes of an answer with these rows. */
export function normalizedPrices(prices: PriceRow[]): NormalizedTokenPrices {
  const tokens = new Map<string, NormalizedTokenPrices['tokens'][number]>();
  for (const p of prices) {
    const known = tokens.get(p.coinType);
    if (known && known.lastSeenAt >= p.priceTime) continue;
    tokens.set(p.coinType, {
      coinType: p.coinType,
      chain: 'sui',
      symbol: p.coinType.split('::')[2]!,
      decimals: 9,
      firstSeenAt: known?.firstSeenAt ?? p.priceTime,
      lastSeenAt: p.priceTime,
      lastPriceTime: p.priceTime,
    });
  }
  return { tokens: [...tokens.values()], prices, missing: [] };
}
