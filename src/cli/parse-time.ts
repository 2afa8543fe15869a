import { InvalidInputError } from '../errors.js';

/** A command-line time; `flag` names it in the error. */
export function parseTime(flag: string, value: string): Date {
  const time = new Date(value);
  if (Number.isNaN(time.getTime()))
    throw new InvalidInputError(`invalid ${flag} "${value}": expected an ISO time such as 2026-11-21T12:00:00Z`);
  return time;
}
