import { describe, expect, it } from 'vitest';
import {
  cutJson,
  keyProblem,
  MAX_JSON_DEPTH,
  storableJson,
  storableText,
  unstorableText,
} from '../../src/db/storable-text.ts';

describe('what Postgres can hold of a string', () => {
  it('names a NUL and a lone surrogate, not a surrogate pair', () => {
    expect(unstorableText('plain')).toBeUndefined();
    expect(unstorableText('emoji 😀')).toBeUndefined();
    expect(unstorableText('a\u0000b')).toBe('a NUL character');
    expect(unstorableText('high \ud83d alone')).toBe('a lone UTF-16 surrogate');
    expect(unstorableText('\udc00 low first')).toBe('a lone UTF-16 surrogate');
  });

  it('escapes each such character as its JSON escape and leaves the rest, pairs included', () => {
    expect(storableText('a\u0000b\ud800c\udc00d😀e\udbff')).toBe('a\\u0000b\\ud800c\\udc00d😀e\\udbff');
    const clean = 'nothing to do 😀';
    expect(storableText(clean)).toBe(clean);
  });

  it('refuses as a key a string past MAX_KEY_BYTES (in UTF-8 bytes) or one it cannot hold', () => {
    expect(keyProblem('x'.repeat(1024))).toBeUndefined();
    expect(keyProblem('x'.repeat(1025))).toBe('1025 bytes long, more than the 1024 a key may hold');
    expect(keyProblem('é'.repeat(600))).toBe('1200 bytes long, more than the 1024 a key may hold');
    expect(keyProblem('id\u0000')).toBe('holds a NUL character, which Postgres cannot store');
  });
});

describe('storable JSON values', () => {
  it('returns the same value, nothing copied, when every string is storable', () => {
    const value = { a: [1, { b: 'c', d: null }], e: '😀' };
    expect(storableJson(value)).toEqual({ value, escaped: 0 });
    expect((storableJson(value) as { value: unknown }).value).toBe(value);
  });

  it('copies only what holds an unstorable string, keys included, and counts them', () => {
    const untouched = { keep: 'me' };
    const value = JSON.parse('{"a":"x\\u0000","b":{"\\ud800":1},"c":[1,"\\udc00"]}') as Record<string, unknown>;
    value.d = untouched;
    const result = storableJson(value) as { value: Record<string, unknown>; escaped: number };
    expect(result.escaped).toBe(3);
    expect(result.value).toEqual({ a: 'x\\u0000', b: { '\\ud800': 1 }, c: [1, '\\udc00'], d: { keep: 'me' } });
    expect(result.value.d).toBe(untouched);
    // The original is left as it was.
    expect(value.a).toBe('x\u0000');
  });

  it('keeps a "__proto__" key a key, as JSON.parse made it', () => {
    const value = JSON.parse('{"__proto__":{"p":"\\u0000"},"q":"\\u0000"}') as object;
    const result = storableJson(value) as { value: Record<string, unknown> };
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect(Object.keys(result.value)).toEqual(['__proto__', 'q']);
    expect(JSON.stringify(result.value)).toBe('{"__proto__":{"p":"\\\\u0000"},"q":"\\\\u0000"}');
  });

  it(`refuses a value nested deeper than ${MAX_JSON_DEPTH} levels, and cuts it there for a copy`, () => {
    const deep = JSON.parse(`${'['.repeat(10_000)}1${']'.repeat(10_000)}`) as unknown;
    const within = JSON.parse(`${'['.repeat(MAX_JSON_DEPTH)}1${']'.repeat(MAX_JSON_DEPTH)}`) as unknown;
    expect(storableJson(deep)).toEqual({ problem: `nested deeper than ${MAX_JSON_DEPTH} levels` });
    expect(storableJson(within)).toEqual({ value: within, escaped: 0 });
    const cut = JSON.stringify(cutJson(deep));
    expect(cut.startsWith('['.repeat(MAX_JSON_DEPTH))).toBe(true);
    expect(cut).toContain(`cut: nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(cutJson(within)).toEqual(within);
  });
});
