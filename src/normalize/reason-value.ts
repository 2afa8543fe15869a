/** How much of a value a quarantine reason quotes: enough to recognise it, never a whole huge one. */
export const REASON_VALUE_CHARS = 64;

/**
 * A value as a quarantine reason (and its log line) quotes it: a string as it is, anything else as
 * JSON; beyond REASON_VALUE_CHARS its start and its length, `1234…(5000 characters)`, so that a
 * hostile answer cannot make a reason as long as itself.
 */
export function reasonValue(value: unknown, max = REASON_VALUE_CHARS): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  if (text.length <= max) return text;
  // Not through a surrogate pair: half a character would be unstorable text.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}
