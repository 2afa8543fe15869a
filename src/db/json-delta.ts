import { isDeepStrictEqual } from 'node:util';

/**
 * `value` as a snapshot stores it against `reference` (values parsed from JSON): null when equal (as
 * jsonb: keys in any order, a missing key is not a null one); the top-level keys that differ or are new
 * when no key of `reference` is missing; else [value]. chaintap_jsonb_patch (migration 0006) applies it.
 */
export function jsonDelta(reference: unknown, value: unknown): unknown {
  if (isDeepStrictEqual(reference, value)) return null;
  if (
    isObject(value) &&
    (reference === null || (isObject(reference) && Object.keys(reference).every((key) => Object.hasOwn(value, key))))
  ) {
    // fromEntries: a key named __proto__ stays a key, as in jsonb.
    return Object.fromEntries(
      Object.entries(value).filter(([key, entry]) => reference === null || !isDeepStrictEqual(reference[key], entry)),
    );
  }
  return [value];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
