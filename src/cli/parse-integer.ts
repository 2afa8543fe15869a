import { InvalidInputError } from '../errors.ts';

/** The largest value of a Postgres bigint (int8): the type of chaintap's ids. */
const BIGINT_MAX = 9223372036854775807n;

/** A whole number within [min, max], as a BigInt: nothing is rounded past 2^53. */
function parseWhole(name: string, value: string, min: bigint, max: bigint, what: string): bigint {
  const text = value.trim();
  if (!/^\d+$/.test(text)) throw new InvalidInputError(`invalid ${name} "${value}": expected ${what}`);
  const number = BigInt(text);
  if (number < min || number > max)
    throw new InvalidInputError(`invalid ${name} "${value}": expected ${what}, from ${min} to ${max}`);
  return number;
}

/** An id of a bigint column, as the decimal string postgres.js uses for int8. */
export function parseBigintId(name: string, value: string): string {
  return parseWhole(name, value, 1n, BIGINT_MAX, 'an id (a whole number)').toString();
}

/** A count such as --limit: a whole number from `min` up to 2^53 - 1. */
export function parseCount(name: string, value: string, min = 1): number {
  return Number(parseWhole(name, value, BigInt(min), BigInt(Number.MAX_SAFE_INTEGER), 'a whole number'));
}
