import { describe, expect, it } from 'vitest';
import {
  MAX_PRICE_USD,
  priceProblem,
  priceTimeProblem,
  priceValueProblem,
  priceWindow,
} from '../../src/normalize/price-plausibility.ts';

const SLOT = new Date('2026-11-21T12:00:00Z');
const FETCHED = new Date('2026-11-21T12:00:04Z');
const at = (ms: number) => new Date(SLOT.getTime() + ms);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('a price value', () => {
  it.each(['3.2145', '0.000000000001', '1', String(MAX_PRICE_USD), '999999999999.999'])('%s can be true', (price) => {
    expect(priceValueProblem(price)).toBeUndefined();
  });

  it.each([
    ['-5', 'price -5 is not positive'],
    ['0', 'price 0 is not positive'],
    ['1000000000000.01', 'price 1000000000000.01 is above 1000000000000 USD'],
    [`1${'0'.repeat(308)}`, 'price 1.000000e+308 is above 1000000000000 USD'],
    ['Infinity', 'price Infinity is not a number'],
  ])('%s cannot', (price, reason) => {
    expect(priceValueProblem(price)).toBe(reason);
  });
});

describe('a price time', () => {
  const current = priceWindow({ slot: SLOT, fetchedAt: FETCHED });

  it('of a current price: up to 5 minutes after the fetch, up to 24 hours before the slot', () => {
    expect(priceTimeProblem(at(0), current)).toBeUndefined();
    expect(priceTimeProblem(new Date(FETCHED.getTime() + 5 * MINUTE), current)).toBeUndefined();
    expect(priceTimeProblem(at(-24 * HOUR), current)).toBeUndefined();
    expect(priceTimeProblem(new Date(FETCHED.getTime() + 5 * MINUTE + 1), current)).toBe(
      'price time 2026-11-21T12:05:04.001Z is after 2026-11-21T12:05:04.000Z (5 min past the fetch or the time asked)',
    );
    expect(priceTimeProblem(at(23 * HOUR), current)).toMatch(/^price time 2026-11-22T11:00:00.000Z is after/);
    expect(priceTimeProblem(at(-24 * HOUR - 1), current)).toBe(
      'price time 2026-11-20T11:59:59.999Z is more than 24 h before the slot 2026-11-21T12:00:00.000Z',
    );
    expect(priceTimeProblem(new Date('1990-01-01T00:00:00Z'), current)).toMatch(/more than 24 h before the slot/);
  });

  it('of a past price: within 24 hours before the time asked, 5 minutes after it, whenever it was fetched', () => {
    const asked = new Date('2026-10-01T08:00:00Z');
    const past = priceWindow({ asked, slot: SLOT, fetchedAt: FETCHED });
    expect(priceTimeProblem(asked, past)).toBeUndefined();
    expect(priceTimeProblem(new Date(asked.getTime() - 23 * HOUR), past)).toBeUndefined();
    expect(priceTimeProblem(new Date(asked.getTime() + 6 * MINUTE), past)).toMatch(/is after 2026-10-01T08:05:00.000Z/);
    expect(priceTimeProblem(new Date(asked.getTime() - 25 * HOUR), past)).toBe(
      'price time 2026-09-30T07:00:00.000Z is more than 24 h before the time asked, 2026-10-01T08:00:00.000Z',
    );
    // The fetch time is no bound of a past price: asked a month ago, answered now.
    expect(priceTimeProblem(SLOT, past)).toMatch(/is after/);
  });

  it('priceProblem names the value first, then the time', () => {
    expect(priceProblem('-1', at(48 * HOUR), current)).toBe('price -1 is not positive');
    expect(priceProblem('1', at(48 * HOUR), current)).toMatch(/is after/);
    expect(priceProblem('1', at(0), current)).toBeUndefined();
  });
});
