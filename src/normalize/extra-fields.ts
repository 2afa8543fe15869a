/**
 * The fields of a wire object that no column maps, for an `extra` jsonb column; null when there are
 * none. Undefined values are left out (they are not in the body either).
 */
export function extraFields(
  source: object | null | undefined,
  known: readonly string[],
): Record<string, unknown> | null {
  if (!source) return null;
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined && !known.includes(key)) extra[key] = value;
  }
  return Object.keys(extra).length > 0 ? extra : null;
}

/** Merges the named parts into one `extra` object, leaving out the empty ones; null when all are. */
export function mergeExtra(
  parts: Record<string, Record<string, unknown> | null | undefined>,
  base: Record<string, unknown> | null = null,
): Record<string, unknown> | null {
  const merged: Record<string, unknown> = { ...base };
  for (const [name, part] of Object.entries(parts)) {
    if (part && Object.keys(part).length > 0) merged[name] = part;
  }
  return Object.keys(merged).length > 0 ? merged : null;
}
