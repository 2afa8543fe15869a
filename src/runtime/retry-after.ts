/**
 * Retry-After (RFC 9110 10.2.3) as milliseconds from `now`: delay-seconds or an HTTP date; undefined
 * when absent or unreadable, so that each caller (upstream client, webhooks) picks its own fallback.
 */
export function readRetryAfterMs(
  value: string | string[] | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // An HTTP date names a weekday and month; Date.parse alone would also take "-5" as a year.
  const date = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
