/**
 * `value` as a snapshot stores it against `reference` (values parsed from JSON): null when equal; the
 * top-level keys that differ or are new when no key of `reference` is missing; else [value]. The
 * views apply it back with chaintap_jsonb_patch (migration 0006). Pure.
 */
export function jsonDelta(reference: unknown, value: unknown): unknown {
  if (jsonEqual(reference, value)) return null;
  if (
    isObject(value) &&
    (reference === null || (isObject(reference) && Object.keys(reference).every((key) => Object.hasOwn(value, key))))
  ) {
    // fromEntries: a key named __proto__ stays a key, as in jsonb.
    return Object.fromEntries(
      Object.entries(value).filter(([key, entry]) => reference === null || !jsonEqual(reference[key], entry)),
    );
  }
  return [value];
}

/** jsonb equality of values parsed from JSON: keys in any order; a missing key is not a null one. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((entry, i) => jsonEqual(entry, b[i]))
    );
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(
    (key) =>
      Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
