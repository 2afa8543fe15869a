/**
 * A jsonb value as JSON text for a raw query's text[] parameter (cast to jsonb in SQL): null and
 * undefined stay SQL NULL. JSON parameters are sent as the text they are (see client.ts).
 */
export function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
