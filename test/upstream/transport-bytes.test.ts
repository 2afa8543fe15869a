import { describe, expect, it } from 'vitest';
import { bytesScrubber, decodeOutcome } from '../../src/upstream/transport.ts';

const KEY = 'sk-test-ключ-1234';
const encode = (text: string) => new TextEncoder().encode(text);
const answer = (body: Uint8Array) => ({ kind: 'answer' as const, status: 200, body, durationMs: 1, waitMs: 0 });

describe('an answer body as bytes (what the sender thread posts)', () => {
  const scrub = bytesScrubber(KEY);

  it('passes a body without the key through as the same bytes', () => {
    const body = encode('{"data":[{"symbol":"é"}]}');
    expect(scrub(body)).toBe(body);
  });

  it('redacts the key wherever the body holds it, also next to multi-byte characters', () => {
    const scrubbed = scrub(encode(`{"error":"bad key ${KEY}","again":"é${KEY}é"}`));
    expect(decodeOutcome(answer(scrubbed))).toMatchObject({
      body: '{"error":"bad key [redacted]","again":"é[redacted]é"}',
    });
    // A buffer of its own: it can move to another thread whole.
    expect(scrubbed.byteOffset).toBe(0);
    expect(scrubbed.byteLength).toBe(scrubbed.buffer.byteLength);
  });

  it('redacts the key URL-encoded (either case) and JSON-escaped (\\u, either case) too', () => {
    const url = encodeURIComponent(KEY);
    // As an ASCII-only JSON encoder writes it: each non-ASCII character as \uXXXX.
    const unicode = KEY.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const upper = unicode.replace(/\\u[0-9a-f]{4}/g, (escape) => escape.toUpperCase().replace('\\U', '\\u'));
    const lower = url.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
    const body = `{"next":"/page?key=${url}","lower":"${lower}","echo":"${unicode}","upper":"${upper}"}`;
    expect(new Set([KEY, url, lower, unicode, upper]).size).toBe(5);
    expect(decodeOutcome(answer(scrub(encode(body))))).toMatchObject({
      body: '{"next":"/page?key=[redacted]","lower":"[redacted]","echo":"[redacted]","upper":"[redacted]"}',
    });
  });

  it('redacts a key with no character that every form keeps as it is', () => {
    const key = '/+="\\/+=';
    const body = `a ${key} b ${encodeURIComponent(key)} c ${JSON.stringify(key).slice(1, -1)} d`;
    expect(decodeOutcome(answer(bytesScrubber(key)(encode(body))))).toMatchObject({
      body: 'a [redacted] b [redacted] c [redacted] d',
    });
  });

  it('decodes as UTF-8 and drops a leading byte order mark, as undici text() does', () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...encode('{"a":"ü"}')]);
    expect(decodeOutcome(answer(body))).toEqual({ ...answer(body), body: '{"a":"ü"}' });
    const failure = {
      kind: 'failure' as const,
      reason: 'timeout' as const,
      message: 'no answer',
      durationMs: 1,
      waitMs: 0,
    };
    expect(decodeOutcome(failure)).toBe(failure);
  });
});
