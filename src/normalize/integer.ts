import { UnreadablePayloadError } from './unreadable-payload-error.ts';

/** A wire integer (number or digit string) as a number; null for null/undefined. */
export function toInteger(value: number | string | null | undefined, field: string): number | null {
  if (value === null || value === undefined) return null;
  const number = typeof value === 'number' ? value : /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number))
    throw new UnreadablePayloadError(`${field} ${JSON.stringify(value)} is not an integer`);
  return number;
}

/** An identifier that may come as a number, as text; null for null/undefined/empty. */
export function toText(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  return text === '' ? null : text;
}
