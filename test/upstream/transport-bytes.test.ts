import { describe, expect, it } from 'vitest';
import { bytesScrubber, decodeOutcome } from '../../src/upstream/transport.js';

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
