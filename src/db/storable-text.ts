/**
 * What Postgres can hold of an upstream answer's strings. Pure.
 * - text and jsonb refuse NUL, jsonb a lone UTF-16 surrogate (text would store U+FFFD): free text is
 *   stored with such characters as their JSON escapes (`\u0000`); an identifier with one is no key.
 * - A btree entry holds about 2,700 bytes for all its key's columns: a longer identifier is no key.
 * - JSON.stringify and the jsonb parser recurse per level and run out of stack some thousands
 *   deep: JSON deeper than MAX_JSON_DEPTH is refused (real answers nest about ten).
 */

export const MAX_KEY_BYTES = 1024;
export const MAX_JSON_DEPTH = 64;

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** What of a string Postgres cannot hold in text and jsonb ('a NUL character', 'a lone UTF-16 surrogate'), or undefined. */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'a NUL character';
  if (!text.isWellFormed()) return 'a lone UTF-16 surrogate';
  return undefined;
}

/** Why `text` cannot be a key (what it holds, or its length), or undefined when it can. */
export function keyProblem(text: string): string | undefined {
  const unstorable = unstorableText(text);
  if (unstorable) return `holds ${unstorable}, which Postgres cannot store`;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_KEY_BYTES) return `${bytes} bytes long, more than the ${MAX_KEY_BYTES} a key may hold`;
  return undefined;
}

/** The text with NUL and lone surrogates written as their JSON escapes; the same string when it has none. */
export function storableText(text: string): string {
  if (unstorableText(text) === undefined) return text;
  return text
    .replaceAll('\u0000', '\\u0000')
    .replace(LONE_SURROGATE, (char) => `\\u${char.charCodeAt(0).toString(16)}`);
}

export type StorableJson = { value: unknown; escaped: number } | { problem: string };

/** A parsed JSON value with every string (keys too) storable: itself when it is, else an escaped copy. */
export function storableJson(value: unknown): StorableJson {
  const counter = { escaped: 0 };
  const result = walk(value, 0, counter);
  return result === TOO_DEEP
    ? { problem: `nested deeper than ${MAX_JSON_DEPTH} levels` }
    : { value: result, escaped: counter.escaped };
}

/** A copy of a JSON value cut at `maxDepth` (deeper containers replaced by a note), safe to stringify. */
export function cutJson(value: unknown, maxDepth = MAX_JSON_DEPTH): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (maxDepth === 0) return `… (cut: nested deeper than ${MAX_JSON_DEPTH} levels)`;
  if (Array.isArray(value)) return value.map((item) => cutJson(item, maxDepth - 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutJson(item, maxDepth - 1)]));
}

const TOO_DEEP = Symbol('too deep');

function walk(value: unknown, depth: number, counter: { escaped: number }): unknown {
  if (typeof value === 'string') {
    const text = storableText(value);
    if (text !== value) counter.escaped++;
    return text;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_JSON_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = walk(value[i], depth + 1, counter);
      if (item === TOO_DEEP) return TOO_DEEP;
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let copy: [string, unknown][] | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = record[key];
    const storedItem = walk(item, depth + 1, counter);
    if (storedItem === TOO_DEEP) return TOO_DEEP;
    const storedKey = storableText(key);
    if (storedKey !== key) counter.escaped++;
    if (!copy && (storedKey !== key || storedItem !== item)) copy = keys.slice(0, i).map((k) => [k, record[k]]);
    copy?.push([storedKey, storedItem]);
  }
  // fromEntries defines own properties: a "__proto__" key stays a key, as JSON.parse made it.
  return copy ? Object.fromEntries(copy) : value;
}
