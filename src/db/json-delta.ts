/**
 * How a snapshot stores what repeats (its `extra` against positions.snapshot_extra, an amount
 * entry's token object against its position_tokens.info), for values parsed from JSON: `value` as
 * stored against `reference`. null when equal; an object of the top-level keys that differ or are new
 * when both are objects and no key of `reference` is missing (a delta); else [value]. The views give
 * the value back with the SQL function chaintap_jsonb_patch(reference, delta) (migration 0006). Pure.
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

/**
 * jsonb equality for values parsed from JSON (so every number is a double on both sides): objects
 * by their keys whatever the order, arrays element by element. A key missing is not equal to a key
 * holding null.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
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
