import { describe, expect, it } from 'vitest';
import { secretScrubber } from '../../src/runtime/scrub.ts';

const KEY = 'sk-test-ключ-1234';
describe('the key scrubbed from an answer body', () => {
  const scrub = secretScrubber([KEY]);

  it('passes a body without the key through unchanged', () => {
    const body = '{"data":[{"symbol":"é"}]}';
    expect(scrub(body)).toBe(body);
  });

  it('redacts the key wherever the body holds it, also next to multi-byte characters', () => {
    const scrubbed = scrub(`{"error":"bad key ${KEY}","again":"é${KEY}é"}`);
    expect(scrubbed).toBe('{"error":"bad key [redacted]","again":"é[redacted]é"}');
  });

  it('redacts the key URL-encoded (either case) and JSON-escaped (\\u, either case) too', () => {
    const url = encodeURIComponent(KEY);
    // As an ASCII-only JSON encoder writes it: each non-ASCII character as \uXXXX.
    const unicode = KEY.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const upper = unicode.replace(/\\u[0-9a-f]{4}/g, (escape) => escape.toUpperCase().replace('\\U', '\\u'));
    const lower = url.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
    const body = `{"next":"/page?key=${url}","lower":"${lower}","echo":"${unicode}","upper":"${upper}"}`;
    expect(new Set([KEY, url, lower, unicode, upper]).size).toBe(5);
    expect(scrub(body)).toBe(
      '{"next":"/page?key=[redacted]","lower":"[redacted]","echo":"[redacted]","upper":"[redacted]"}',
    );
  });

  it('redacts a key with no character that every form keeps as it is', () => {
    const key = '/+="\\/+=';
    const body = `a ${key} b ${encodeURIComponent(key)} c ${JSON.stringify(key).slice(1, -1)} d`;
    expect(secretScrubber([key])(body)).toBe('a [redacted] b [redacted] c [redacted] d');
  });
});
