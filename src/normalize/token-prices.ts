import { InvalidInputError } from '../errors.ts';
import { tokenPriceEntry, type TokenPriceEntry, type TokenPriceResponse } from '../upstream/schemas.ts';
import { SUI_CHAIN } from '../chain/chain-name.ts';
import { normalizeCoinType } from '../chain/coin-type.ts';
import { readElements } from './answer-elements.ts';
import { DriftLog } from './schema-drift.ts';
import { readDecimal, readInteger, readText } from './wire-fields.ts';
import type { ElementOutcome, NormalizedTokenPrices, PriceRow, TokenRow } from '../db/schema/rows.ts';
import { toTimestamp } from './timestamp.ts';
import { PricePointSet, readPrice24hAgo, readPriceSource } from './price-points.ts';
import { priceProblem, priceTimeProblem, type PriceWindow } from './price-plausibility.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';
import { reasonValue } from './reason-value.ts';

/** What a price answer is read against: the coin types asked for (normal form), its time window, the fetch time. */
export interface PriceAnswerContext {
  asked: readonly string[];
  /** price-plausibility.ts's priceWindow of the request. */
  window: PriceWindow;
  fetchedAt: Date;
}

/**
 * Rows from a price answer, coin types in their normal form (the upstream may answer the short
 * spelling). Only what was asked and could be true is stored: an entry for a coin type not asked
 * for, or whose price or time price-plausibility.ts refuses, is quarantined alone with the reason. A
 * null price is no row: the coin type is `missing`. A repeated (coin type, price time) replaces the
 * earlier. tokens' seen times span the upstream's own timestamps, so rewriting an answer changes
 * nothing. An unreadable entry is quarantined alone; other fields of another shape are drift.
 */
export function normalizeTokenPrices(
  response: TokenPriceResponse,
  ctx: PriceAnswerContext,
): NormalizedTokenPrices & ElementOutcome {
  const asked = new Set(ctx.asked);
  const points = new PricePointSet('later');
  const missing = new Set<string>();
  const drifts = new DriftLog();
  const quarantined = readElements('prices', response.data, tokenPriceEntry, drifts, (entry, own) => {
    const coinType = readCoinType(entry.contract_address);
    if (!asked.has(coinType)) throw new UnreadablePayloadError(`coin type ${coinType} was not asked for`);
    const price = readDecimal(entry.price, 'prices.price', own);
    if ('unread' in price)
      throw new UnreadablePayloadError(`price of ${coinType} is not a number: ${reasonValue(entry.price)}`);
    const token = (seenAt: Date, priceTime: Date | null) => tokenRow(coinType, entry, seenAt, priceTime, own);
    if (price.value === null) {
      const row = token(seenTimeOfUnpriced(entry, ctx), null);
      return () => {
        missing.add(coinType);
        points.addToken(row);
      };
    }
    const priceTime = readPriceTime(entry, own);
    const problem = priceProblem(price.value, priceTime, ctx.window);
    if (problem) throw new UnreadablePayloadError(`${problem}, for ${coinType}`);
    const row: PriceRow = {
      coinType,
      chain: SUI_CHAIN,
      priceTime,
      price: price.value,
      price24hAgo: readPrice24hAgo(entry.last24hPrice, 'prices.last24hPrice', own),
      source: readPriceSource(entry.source, 'prices.source', own),
      fetchedAt: ctx.fetchedAt,
      origin: 'prices',
    };
    const tokenSeen = token(priceTime, priceTime);
    return () => points.addPrice(row, tokenSeen);
  });
  const { tokens, prices } = points.points();
  const priced = new Set(prices.map((price) => price.coinType));
  return {
    tokens,
    prices,
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
    throw new UnreadablePayloadError(`timestamp ${reasonValue(entry.timestamp)} is not a Unix time`);
  return toTimestamp(time.value);
}

function readCoinType(contractAddress: string): string {
  try {
    return normalizeCoinType(contractAddress);
  } catch (error) {
    if (error instanceof InvalidInputError) throw new UnreadablePayloadError(`contract_address: ${error.message}`);
    throw error;
  }
}

/**
 * An entry without a price may carry a placeholder timestamp (0), or one no price could have: then
 * the fetch time stands in, so that no such time reaches token_catalog.
 */
function seenTimeOfUnpriced(entry: TokenPriceEntry, ctx: PriceAnswerContext): Date {
  try {
    const time = readPriceTime(entry, new DriftLog());
    return priceTimeProblem(time, ctx.window) ? ctx.fetchedAt : time;
  } catch (error) {
    if (error instanceof UnreadablePayloadError) return ctx.fetchedAt;
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
    chain: SUI_CHAIN,
    symbol: readText(entry.symbol, 'prices.symbol', drifts).value,
    decimals: readInteger(entry.decimals, 'prices.decimals', drifts).value,
    firstSeenAt: seenAt,
    lastSeenAt: seenAt,
    lastPriceTime: priceTime,
  };
}
