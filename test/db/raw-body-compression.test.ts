import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  decodeRawBody,
  DICTIONARY_MAX_AGE_MS,
  encodeRawBody,
  type RawBodyDictionary,
} from '../../src/db/raw-body-compression.ts';

const T = new Date('2026-11-21T12:00:00Z');
const answer = (n: number, ids = ['0xaa', '0xbb', '0xcc', '0xdd']) =>
  JSON.stringify({
    data: ids.map((id, i) => ({
      positionId: `${id}${'7'.repeat(60)}`,
      value: 1000 + n + i,
      token: { symbol: 'SUI', decimals: 9 },
    })),
  });
const dictionaryOf = (body: string, createdAt = T, id = 1): RawBodyDictionary => ({
  id,
  createdAt,
  bodyZlib: deflateSync(Buffer.from(body)),
});

describe('raw body compression', () => {
  it("compresses an answer against its target's current dictionary, and gives it back exactly", () => {
    const current = dictionaryOf(answer(0));
    const body = answer(1);
    const encoded = encodeRawBody(body, { success: true, receivedAt: new Date(T.getTime() + 900_000), current });
    expect(encoded.dictionary).toEqual({ id: 1 });
    expect(encoded.bodyZlib.length).toBeLessThan(deflateSync(Buffer.from(body)).length / 2);
    expect(decodeRawBody(encoded.bodyZlib, current.bodyZlib)).toBe(body);
  });

  it('makes the body the new dictionary when there is none, the current one is a day old, or it stopped paying', () => {
    const body = answer(2);
    const stale = dictionaryOf(answer(0), new Date(T.getTime() - DICTIONARY_MAX_AGE_MS));
    const unlike = dictionaryOf(JSON.stringify({ other: 'x'.repeat(600) }));
    for (const current of [null, stale, unlike]) {
      const encoded = encodeRawBody(body, { success: true, receivedAt: T, current });
      expect(encoded.dictionary).toMatchObject({ create: expect.any(Buffer) });
      const created = (encoded.dictionary as { create: Buffer }).create;
      expect(decodeRawBody(created, null)).toBe(body);
      expect(decodeRawBody(encoded.bodyZlib, created)).toBe(body);
    }
  });

  it('compresses error answers and short bodies alone, and keeps any character', () => {
    const current = dictionaryOf(answer(0));
    const error = encodeRawBody(answer(3), { success: false, receivedAt: T, current });
    expect(error.dictionary).toBeNull();
    expect(decodeRawBody(error.bodyZlib, null)).toBe(answer(3));
    const odd = 'nul \u0000, emoji 🦆, é';
    const short = encodeRawBody(odd, { success: true, receivedAt: T, current });
    expect(short.dictionary).toBeNull();
    expect(decodeRawBody(short.bodyZlib, null)).toBe(odd);
  });

  it('refuses to inflate against the wrong dictionary', () => {
    const current = dictionaryOf(answer(0));
    const encoded = encodeRawBody(answer(1), { success: true, receivedAt: T, current });
    expect(() => decodeRawBody(encoded.bodyZlib, dictionaryOf(answer(9, ['0x11'])).bodyZlib)).toThrow(/dictionary/i);
  });
});
