import { InvalidInputError } from '../errors.ts';
import { tokenPriceEntry, type TokenPriceEntry, type TokenPriceResponse } from '../upstream/schemas.ts';
import { normalizeCoinType } from '../chain/coin-type.ts';
import { readElements } from './answer-elements.ts';
import { DriftLog } from './schema-drift.ts';
import { readDecimal, readInteger, readText } from './wire-fields.ts';
import type { ElementOutcome, NormalizedTokenPrices, PriceRow, TokenRow } from '../db/schema/rows.ts';
import { toTimestamp } from './timestamp.ts';
import { keyProblem } from '../db/storable-text.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';

/** A price time further than this past the fetch is not a clock difference but nonsense. */
const MAX_FUTURE_MS = 24 * 3600 * 1000;

/**
 * Rows from a price answer, coin types in their normal form (the upstream may answer the short
 * spelling). A null price is no row: the coin type is `missing`. A repeated (coin type, price time)
 * replaces the earlier. tokens' seen times span the upstream's own timestamps, so rewriting an answer
 * changes nothing. An unreadable entry is quarantined alone; other fields of another shape are drift.
 */
export function normalizeTokenPrices(
  response: TokenPriceResponse,
  ctx: { fetchedAt: Date },
): NormalizedTokenPrices & ElementOutcome {
  const tokens = new Map<string, TokenRow>();
  const prices = new Map<string, PriceRow>();
  const missing = new Set<string>();
  const drifts = new DriftLog();
  const quarantined = readElements('prices', response.data, tokenPriceEntry, drifts, (entry, own) => {
    const coinType = readCoinType(entry.contract_address);
    const price = readDecimal(entry.price, 'prices.price', own);
    if ('unread' in price)
      throw new UnreadablePayloadError(`price of ${coinType} is not a number: ${JSON.stringify(entry.price)}`);
    const token = (seenAt: Date, priceTime: Date | null) => tokenRow(coinType, entry, seenAt, priceTime, own);
    if (price.value === null) {
      const row = token(seenTimeOfUnpriced(entry, ctx.fetchedAt), null);
      return () => {
        missing.add(coinType);
        mergeToken(tokens, row);
      };
    }
    const priceTime = readPriceTime(entry, own);
    if (priceTime.getTime() - ctx.fetchedAt.getTime() > MAX_FUTURE_MS) {
      throw new UnreadablePayloadError(
        `price time ${priceTime.toISOString()} of ${coinType} is after the fetch (${ctx.fetchedAt.toISOString()})`,
      );
    }
    const row: PriceRow = {
      coinType,
      priceTime,
      price: price.value,
      price24hAgo: readDecimal(entry.last24hPrice, 'prices.last24hPrice', own).value,
      source: readSource(entry.source, own),
      fetchedAt: ctx.fetchedAt,
    };
    const tokenSeen = token(priceTime, priceTime);
    return () => {
      prices.set(`${coinType}\u0000${priceTime.getTime()}`, row);
      mergeToken(tokens, tokenSeen);
    };
  });
  const priced = new Set([...prices.values()].map((price) => price.coinType));
  return {
    tokens: [...tokens.values()],
    prices: [...prices.values()],
    missing: [...missing].filter((coinType) => !priced.has(coinType)),
    elements: response.data.length,
    quarantined,
    drifts: drifts.list(),
  };
}

/** The time of a price: a price without one cannot be stored. */
function readPriceTime(entry: TokenPriceEntry, drifts: DriftLog): Date {
  const time = readDecimal(entry.timestamp, 'prices.timestamp', drifts);
  if (time.value === null)
    throw new UnreadablePayloadError(`timestamp ${JSON.stringify(entry.timestamp)} is not a Unix time`);
  return toTimestamp(time.value);
}

/** A price's source names a price_sources row: one too long to be its key is drift, and null. */
function readSource(raw: unknown, drifts: DriftLog): string | null {
  const source = readText(raw, 'prices.source', drifts).value;
  if (source === null || !keyProblem(source)) return source;
  drifts.record('prices.source', 'oversized_key');
  return null;
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
    return readPriceTime(entry, new DriftLog());
  } catch (error) {
    if (error instanceof UnreadablePayloadError) return fetchedAt;
    throw error;
  }
}

function tokenRow(
  coinType: string,
  entry: TokenPriceEntry,
  seenAt: Date,
  priceTime: Date | null,
  drifts: DriftLog,
): TokenRow {
  return {
    coinType,
    symbol: readText(entry.symbol, 'prices.symbol', drifts).value,
    decimals: readInteger(entry.decimals, 'prices.decimals', drifts).value,
    firstSeenAt: seenAt,
    lastSeenAt: seenAt,
    lastPriceTime: priceTime,
  };
}

function mergeToken(tokens: Map<string, TokenRow>, row: TokenRow): void {
  const known = tokens.get(row.coinType) ?? row;
  tokens.set(row.coinType, {
    coinType: row.coinType,
    symbol: row.symbol ?? known.symbol,
    decimals: row.decimals ?? known.decimals,
    firstSeenAt: known.firstSeenAt <= row.firstSeenAt ? known.firstSeenAt : row.firstSeenAt,
    lastSeenAt: latest(known.lastSeenAt, row.lastSeenAt),
    lastPriceTime:
      known.lastPriceTime && row.lastPriceTime
        ? latest(known.lastPriceTime, row.lastPriceTime)
        : (known.lastPriceTime ?? row.lastPriceTime),
  });
}

function latest(a: Date, b: Date): Date {
  return a >= b ? a : b;
}
