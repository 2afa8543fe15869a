import { InvalidInputError } from '../errors.ts';
import { normalizeCoinType, shortCoinType } from '../chain/coin-type.ts';
import { Draws, hashOf, significant } from './hash.ts';
import { exchangeRate, liquidStakingToken } from './liquid-staking.ts';
import { modelPriceAt, priceGridTime, priceModel } from './price-model.ts';
import { DEFAULT_SEED } from './world.ts';

/** Most tokens one price request may ask for (upstream-api.md 4.1). */
export const MAX_TOKENS_PER_PRICE_REQUEST = 50;

const SUI_COIN_TYPE = normalizeCoinType('0x2::sui::SUI');
const DAY_MS = 86_400_000;
/** Request timestamps below this are seconds, below MILLISECONDS_LIMIT milliseconds. */
const SECONDS_LIMIT = 1e11;
const MILLISECONDS_LIMIT = 1e14;

const tokens = new Map<string, SimulatedToken>();

/** Throws InvalidInputError for an invalid coin type. Memoized: the catalogue of tokens is small. */
export function simulatedToken(coinType: string, seed: string = DEFAULT_SEED): SimulatedToken {
  const cacheKey = `${seed}\u0000${coinType}`;
  const known = tokens.get(cacheKey);
  if (known) return known;
  const token = drawToken(coinType, seed);
  if (tokens.size > 100_000) tokens.clear();
  tokens.set(cacheKey, token);
  return token;
}

/** What the simulated upstream knows about one token, fixed per (seed, coin type). */
function drawToken(coinType: string, seed: string) {
  const normalized = normalizeCoinType(coinType);
  const isSui = normalized === SUI_COIN_TYPE;
  const symbol = normalized.split('<')[0]!.split('::')[2]!;
  const stable = /USD/i.test(symbol);
  const draws = new Draws(seed, normalized, 'token');
  const short = isSui || draws.chance(0.5);
  return {
    /** Normal form (0x + 64 hex addresses). */
    coinType: normalized,
    /** `contract_address` as answered: the short or the 64-hex spelling, whatever was asked. */
    answeredAs: short ? shortCoinType(normalized) : normalized,
    symbol,
    decimals: isSui ? 9 : stable ? 6 : draws.pick([6, 8, 9, 9, 9]),
    source: draws.pick(['simulated', 'simulated', 'simulated', 'simulated', 'pyth', 'cetus', 'birdeye']),
    /** False for the few tokens the upstream knows but has no price for (price: null). */
    priced: isSui || hashOf(seed, normalized) % 97 !== 0,
    /** True for the few tokens whose price and last24hPrice are answered as numeric strings. */
    priceAsString: !isSui && draws.chance(1 / 7),
    significantDigits: draws.pick([12, 12, 10, 9, 6]),
    model: priceModel(normalized, seed, isSui ? { base: 3.2 } : stable ? { base: 1, stable: true } : {}),
  };
}
export type SimulatedToken = ReturnType<typeof drawToken>;

/**
 * The price the simulated upstream gives for a token at a time (the price of the 60 s grid minute
 * the time falls into, rounded as answered), or null for a token without a price.
 */
export function simulatedTokenPrice(coinType: string, timeMs: number, seed: string = DEFAULT_SEED): number | null {
  const token = simulatedToken(coinType, seed);
  if (!token.priced) return null;
  const staked = liquidStakingToken(token.coinType);
  const price = staked
    ? modelPriceAt(simulatedToken(staked.native, seed).model, timeMs) * exchangeRate(staked, timeMs)
    : modelPriceAt(token.model, timeMs);
  return significant(price, token.significantDigits);
}

/** The time a price request asks for: a request `timestamp` read by magnitude, or the world time. */
export function priceRequestTime(
  timestamp: unknown,
  worldTimeMs: number,
): { timeMs: number; unit: 'seconds' | 'milliseconds' } {
  if (timestamp === undefined || timestamp === null) return { timeMs: worldTimeMs, unit: 'seconds' };
  const value = typeof timestamp === 'string' && /^\d+$/.test(timestamp) ? Number(timestamp) : timestamp;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidInputError('timestamp must be a non-negative integer (seconds or milliseconds)');
  }
  if (value < SECONDS_LIMIT) return { timeMs: value * 1000, unit: 'seconds' };
  if (value < MILLISECONDS_LIMIT) return { timeMs: value, unit: 'milliseconds' };
  throw new InvalidInputError('timestamp is out of range: expected seconds or milliseconds since 1970');
}

/** The coin types of a request's `addresses` in normal form, in order, without repeats. */
function priceRequestCoinTypes(addresses: unknown, seed: string): string[] {
  if (typeof addresses !== 'string' || addresses.trim() === '') {
    throw new InvalidInputError('addresses must be a non-empty comma-separated string of coin types');
  }
  const asked = addresses.split(',').map((part) => part.trim());
  if (asked.length > MAX_TOKENS_PER_PRICE_REQUEST) {
    throw new InvalidInputError(
      `too many tokens: ${asked.length} asked, at most ${MAX_TOKENS_PER_PRICE_REQUEST} per request`,
    );
  }
  return [...new Set(asked.map((coinType) => simulatedToken(coinType, seed).coinType))];
}

/**
 * The whole answer to POST /tokens/sui/price for a request body at a world time. Throws
 * InvalidInputError (answered 400) for a body the upstream rejects.
 */
export function simulatedPriceResponse(body: unknown, worldTimeMs: number, seed = DEFAULT_SEED, realShapes = false) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidInputError('the body must be a JSON object with addresses and an optional timestamp');
  }
  const { addresses, timestamp } = body as Record<string, unknown>;
  const coinTypes = priceRequestCoinTypes(addresses, seed);
  const time = priceRequestTime(timestamp, worldTimeMs);
  const gridMs = priceGridTime(time.timeMs);
  const data = coinTypes.map((coinType) => {
    const token = simulatedToken(coinType, seed);
    const spell = (price: number | null) => (price !== null && token.priceAsString ? String(price) : price);
    // The real-shapes world leaves last24hPrice out for about a third of the tokens.
    const noLast24h = realShapes && hashOf(seed, token.coinType, 'no-last24h') % 3 === 0;
    return {
      contract_address: token.answeredAs,
      symbol: token.symbol,
      price: spell(simulatedTokenPrice(coinType, gridMs, seed)),
      ...(noLast24h ? {} : { last24hPrice: spell(simulatedTokenPrice(coinType, gridMs - DAY_MS, seed)) }),
      timestamp: time.unit === 'seconds' ? gridMs / 1000 : gridMs,
      decimals: token.decimals,
      source: token.source,
    };
  });
  return { data };
}
