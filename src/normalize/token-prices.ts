import { InvalidInputError } from '../errors.js';
import type { TokenPriceEntry, TokenPriceResponse } from '../upstream/schemas.js';
import { normalizeCoinType } from './coin-type.js';
import { toDecimalString } from './decimal.js';
import { toInteger } from './integer.js';
import type { NormalizedTokenPrices, PriceRow, TokenRow } from './rows.js';
import { toTimestamp } from './timestamp.js';
import { UnreadablePayloadError } from './unreadable-payload-error.js';

/** A price time further than this past the fetch is not a clock difference but nonsense. */
const MAX_FUTURE_MS = 24 * 3600 * 1000;

/**
 * Rows from a price answer. Coin types take their normal form (the upstream may answer the short
 * spelling of what was asked in the 64-hex one). A null price is not a row: the coin type is listed
 * in `missing`. One price per (coin type, price time): a repeated entry replaces the earlier one.
 * tokens.first/last_seen_at span the upstream's own timestamps, so rewriting an answer changes nothing.
 */
export function normalizeTokenPrices(response: TokenPriceResponse, ctx: { fetchedAt: Date }): NormalizedTokenPrices {
  const tokens = new Map<string, TokenRow>();
  const prices = new Map<string, PriceRow>();
  const missing = new Set<string>();
  for (const entry of response.data) {
    const coinType = readCoinType(entry.contract_address);
    if (entry.price === null) {
      missing.add(coinType);
      mergeToken(tokens, tokenRow(coinType, entry, seenTimeOfUnpriced(entry, ctx.fetchedAt), null));
      continue;
    }
    const priceTime = toTimestamp(entry.timestamp);
    if (priceTime.getTime() - ctx.fetchedAt.getTime() > MAX_FUTURE_MS) {
      throw new UnreadablePayloadError(`price time ${priceTime.toISOString()} of ${coinType} is after the fetch (${ctx.fetchedAt.toISOString()})`);
    }
    prices.set(`${coinType}\u0000${priceTime.getTime()}`, {
      coinType,
      priceTime,
      price: toDecimalString(entry.price)!,
      price24hAgo: toDecimalString(entry.last24hPrice),
      source: entry.source ?? null,
      fetchedAt: ctx.fetchedAt,
    });
    mergeToken(tokens, tokenRow(coinType, entry, priceTime, priceTime));
  }
  const priced = new Set([...prices.values()].map((price) => price.coinType));
  return {
    tokens: [...tokens.values()],
    prices: [...prices.values()],
    missing: [...missing].filter((coinType) => !priced.has(coinType)),
  };
}

function readCoinType(contractAddress: string): string {
  try {
    return normalizeCoinType(contractAddress);
  } catch (error) {
    if (error instanceof InvalidInputError) throw new UnreadablePayloadError(`contract_address: ${error.message}`);
    throw error;
  }
}

/** An entry without a price may carry a placeholder timestamp (0): then the fetch time stands in. */
function seenTimeOfUnpriced(entry: TokenPriceEntry, fetchedAt: Date): Date {
  try {
    return toTimestamp(entry.timestamp);
  } catch (error) {
    if (error instanceof UnreadablePayloadError) return fetchedAt;
    throw error;
  }
}

function tokenRow(coinType: string, entry: TokenPriceEntry, seenAt: Date, priceTime: Date | null): TokenRow {
  return {
    coinType,
    symbol: entry.symbol ?? null,
    decimals: toInteger(entry.decimals, 'decimals'),
    firstSeenAt: seenAt,
    lastSeenAt: seenAt,
    lastPriceTime: priceTime,
  };
}

function mergeToken(tokens: Map<string, TokenRow>, row: TokenRow): void {
  const known = tokens.get(row.coinType);
  if (!known) {
    tokens.set(row.coinType, row);
    return;
  }
  tokens.set(row.coinType, {
    coinType: row.coinType,
    symbol: row.symbol ?? known.symbol,
    decimals: row.decimals ?? known.decimals,
    firstSeenAt: earliest(known.firstSeenAt, row.firstSeenAt)!,
    lastSeenAt: latest(known.lastSeenAt, row.lastSeenAt)!,
    lastPriceTime: latest(known.lastPriceTime, row.lastPriceTime),
  });
}

function earliest(a: Date | null, b: Date | null): Date | null {
  if (!a || !b) return a ?? b;
  return a <= b ? a : b;
}

function latest(a: Date | null, b: Date | null): Date | null {
  if (!a || !b) return a ?? b;
  return a >= b ? a : b;
}
