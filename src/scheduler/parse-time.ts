import { InvalidInputError } from '../errors.ts';

/**
 * Times and steps as people type them, on the command line and in the report page's query: one
 * parser for both, so that the two agree on what a date is.
 */

/** What a time flag takes, for help texts and errors. */
export const TIME_FORMS =
  'an ISO 8601 time with Z or an offset (2026-11-21T12:00:00Z, 2026-11-21T14:00+02:00), a date (2026-11-21: midnight UTC), now, or a time before now (-7d, -12h, -30m)';

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;
const RELATIVE = /^-(\d{1,9})([smhd])$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A command-line time; `flag` names it in the error. Only forms with one meaning are taken: a time
 * must carry its zone (without one, `new Date` reads the machine's zone), a calendar date must exist
 * (`new Date` rolls 2026-02-31 over to March 3) and a bare number is refused (`new Date('1')` is 2001).
 */
export function parseTime(flag: string, value: string, now: Date = new Date()): Date {
  const text = value.trim();
  if (text.toLowerCase() === 'now') return new Date(now.getTime());
  const relative = RELATIVE.exec(text);
  if (relative) {
    const time = new Date(now.getTime() - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS]);
    if (time.getTime() < 0 || Number.isNaN(time.getTime()))
      throw invalid(flag, value, 'times before 1970 are not supported');
    return time;
  }
  const iso = ISO.exec(text);
  if (!iso) throw invalid(flag, value);
  const [, year, month, day, hour, minute, second, fraction, zulu, sign, offsetHours, offsetMinutes] = iso;
  if (hour !== undefined && zulu === undefined && sign === undefined)
    throw invalid(flag, value, 'a time needs its zone, Z or an offset such as +02:00');
  const [y, mo, d] = [Number(year), Number(month), Number(day)];
  // The upstream's times are Unix timestamps (and Date.UTC reads years 0 to 99 as 1900 to 1999).
  if (y < 1970) throw invalid(flag, value, 'times before 1970 are not supported');
  if (mo < 1 || mo > 12) throw invalid(flag, value, `there is no month ${month}`);
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d < 1 || d > daysInMonth) throw invalid(flag, value, `${year}-${month} has ${daysInMonth} days`);
  const [h, mi, s] = [Number(hour ?? 0), Number(minute ?? 0), Number(second ?? 0)];
  if (h > 23 || mi > 59 || s > 59) throw invalid(flag, value, 'hours go to 23, minutes and seconds to 59');
  if (Number(offsetHours ?? 0) > 23 || Number(offsetMinutes ?? 0) > 59)
    throw invalid(flag, value, 'an offset goes to 23:59');
  const offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  const ms = Number((fraction ?? '0').padEnd(3, '0').slice(0, 3));
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms) - offset * 60_000);
}

/** The longest step a report or backfill takes: ten years (a longer one is a typo, and overflows time arithmetic). */
const MAX_INTERVAL_DAYS = 3650;

/** "15m", "1h", "1d" -> milliseconds, at most MAX_INTERVAL_DAYS; `name` names the parameter in the error. */
export function parseInterval(value: string, name = '--interval'): number {
  const match = /^(\d+)\s*([smhd])$/.exec(value.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : 0;
  if (!ms)
    throw new InvalidInputError(
      `invalid ${name} "${shown(value)}": expected a number and a unit, such as 15m, 1h or 1d`,
    );
  if (ms > MAX_INTERVAL_DAYS * UNIT_MS.d)
    throw new InvalidInputError(`invalid ${name} "${shown(value)}": at most ${MAX_INTERVAL_DAYS}d (ten years)`);
  return ms;
}

/** A value as an error quotes it: its first 64 characters. */
function shown(value: string): string {
  return value.length > 64 ? `${value.slice(0, 64)}…` : value;
}

function invalid(flag: string, value: string, reason?: string): InvalidInputError {
  return new InvalidInputError(
    `invalid ${flag} "${shown(value)}": ${reason ? `${reason}; ` : ''}expected ${TIME_FORMS}`,
  );
}
