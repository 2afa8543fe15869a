/**
 * A jsonb value as JSON text for a raw query's text[] parameter (cast to jsonb in SQL): null and
 * undefined stay SQL NULL, as Drizzle stores them. postgres.js's own JSON serializer is switched
 * off by Drizzle (see client.ts).
 */
export function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
