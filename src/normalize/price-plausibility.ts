import Big from 'big.js';
import { reasonValue } from './reason-value.ts';

/**
 * The one judge of whether a price and its time could be true, for every price chaintap stores:
 * the price operation's answers and the prices harvested from positions and NFT answers
 * (docs/schema.md, "Which prices are stored").
 */

/**
 * Above this, a price of one token unit is a unit or decimal error, not a market price: 10^12 USD is
 * more than any company or asset has been worth, and leaves seven orders of magnitude above BTC
 * (about 10^5) for units worth more than a coin (LP shares, baskets).
 */
export const MAX_PRICE_USD = 1e12;
/** How far a price time may lie after the fetch (a current price) or the time asked (a past one): clocks differ a little; a price of a moment still to come is impossible. */
const PRICE_AHEAD_TOLERANCE_MS = 5 * 60_000;
/** How far a price time may lie before the time it answers for: older, it is no price of that time (a current price at most a day stale). */
const PRICE_MAX_AGE_MS = 24 * 3_600_000;

const MAX_PRICE = new Big(MAX_PRICE_USD);

/** The times an answer's prices may carry, and what they answer for (for reasons). */
export interface PriceWindow {
  earliest: Date;
  latest: Date;
  /** "the time asked", or "the slot" of a current price. */
  answersFor: string;
}

/**
 * The window of an answer's price times: a past price (`asked`, a backfill or a catch-up) within
 * PRICE_MAX_AGE_MS before the time asked and PRICE_AHEAD_TOLERANCE_MS after it; a current price (or
 * one a positions or NFT answer carries) within PRICE_MAX_AGE_MS before the slot the request is for
 * (its tick) and PRICE_AHEAD_TOLERANCE_MS after the fetch.
 */
export function priceWindow({ asked, slot, fetchedAt }: { asked?: Date; slot: Date; fetchedAt: Date }): PriceWindow {
  const reference = asked ?? slot;
  return {
    earliest: new Date(reference.getTime() - PRICE_MAX_AGE_MS),
    latest: new Date((asked ?? fetchedAt).getTime() + PRICE_AHEAD_TOLERANCE_MS),
    answersFor: asked ? `the time asked, ${asked.toISOString()}` : `the slot ${slot.toISOString()}`,
  };
}

/** Why a price (an exact decimal string, USD) cannot be a token's price; undefined when it can. */
export function priceValueProblem(price: string): string | undefined {
  let value: Big;
  try {
    value = new Big(price);
  } catch {
    return `price ${reasonValue(price)} is not a number`;
  }
  if (value.lte(0)) return `price ${shortNumber(price, value)} is not positive`;
  if (value.gt(MAX_PRICE)) return `price ${shortNumber(price, value)} is above ${MAX_PRICE_USD} USD`;
  return undefined;
}

/** Why a price time cannot be the time of a price answered in this window; undefined when it can. */
export function priceTimeProblem(time: Date, window: PriceWindow): string | undefined {
  const at = time.getTime();
  if (at > window.latest.getTime())
    return `price time ${time.toISOString()} is after ${window.latest.toISOString()} (${PRICE_AHEAD_TOLERANCE_MS / 60_000} min past the fetch or the time asked)`;
  if (at < window.earliest.getTime())
    return `price time ${time.toISOString()} is more than ${PRICE_MAX_AGE_MS / 3_600_000} h before ${window.answersFor}`;
  return undefined;
}

/** Why this price at this time cannot be true; undefined when it can. */
export function priceProblem(price: string, time: Date, window: PriceWindow): string | undefined {
  return priceValueProblem(price) ?? priceTimeProblem(time, window);
}

/** A number as a reason shows it: its digits when short, else in exponent form (a 309-digit 1e308 stays one short line). */
function shortNumber(text: string, value: Big): string {
  return text.length <= 24 ? text : value.toExponential(6);
}
