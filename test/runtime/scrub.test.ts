import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { formatFatalError, literalCore, secretScrubber } from '../../src/runtime/scrub.ts';

// A key with characters that each encoding changes: / + " \ = and a non-ASCII one.
const KEY = 'sk/live+9f"2c\\7e=ü';
const scrub = secretScrubber([KEY]);
const json = (text: string) => JSON.stringify(text).slice(1, -1);
const url = encodeURIComponent(KEY);

describe('secretScrubber: every form of a secret', () => {
  it.each([
    ['as it is', KEY],
    ['JSON-escaped', json(KEY)],
    ['JSON-escaped twice (a JSON text inside a JSON string)', json(json(KEY))],
    ['JSON-escaped with \\/', json(KEY).replaceAll('/', '\\/')],
    [
      'JSON-escaped as \\u, lower case',
      KEY.replace(/[^a-z0-9]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    ],
    [
      'JSON-escaped as \\u, upper case',
      KEY.replace(/[^a-z0-9]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`),
    ],
    ['URL-encoded', url],
    ['URL-encoded, lower-case hex', url.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())],
    ['URL-encoded twice', encodeURIComponent(url)],
    ['form-encoded', new URLSearchParams({ k: KEY }).toString().slice(2)],
    ['mixed, character by character', 'sk%2flive\\u002b9f\\"2c%5C7e%3d\\u00fc'],
  ])('%s', (_, form) => {
    expect(scrub(`before ${form} after`)).toBe('before [redacted] after');
  });

  it('changes nothing else: other text, a near miss, letters in another case, short secrets', () => {
    const text = 'sk/live+9f"2c\\7e= and SK/LIVE+9F"2C\\7E=Ü and sk-live-9f';
    expect(scrub(text)).toBe(text);
    expect(secretScrubber(['abc', undefined])('abc abc')).toBe('abc abc');
    expect(secretScrubber([])('anything')).toBe('anything');
  });

  it('scrubs several secrets, each in any form, the longer first', () => {
    const both = secretScrubber(['token-1234', 'token-1234-admin']);
    expect(both('a token-1234-admin b token-1234 c')).toBe('a [redacted] b [redacted] c');
  });

  it('finds the piece every form holds literally: the longest run of letters, digits and - . _ ~', () => {
    expect(literalCore(KEY)).toBe('live');
    expect(literalCore('a/bc-d_e.f~g+h')).toBe('bc-d_e.f~g');
    expect(literalCore('"/+=')).toBeUndefined();
  });
});

describe('formatFatalError: the CLI last-resort print', () => {
  it('prints an error of ours as its message alone, scrubbed', () => {
    const error = new ConfigError(`UPSTREAM_BASE_URL rejected: http://host/?key=${url}`);
    expect(formatFatalError(error, [KEY])).toBe('error: UPSTREAM_BASE_URL rejected: http://host/?key=[redacted]');
  });

  it('prints any other error with its stack, cause and properties, every secret scrubbed in every form', () => {
    const cause = new Error(`upstream said {"key":"${json(KEY)}"}`);
    const error = Object.assign(new TypeError(`failed for ${KEY}`, { cause }), {
      url: `/path?api_key=${url}`,
      token: 'ops-token-5678',
    });
    const printed = formatFatalError(error, [KEY, 'ops-token-5678', undefined]);
    expect(printed).toMatch(/^TypeError: failed for \[redacted\]\n\s+at /);
    expect(printed).toContain('upstream said {"key":"[redacted]"}');
    expect(printed).toContain('/path?api_key=[redacted]');
    expect(printed).toContain("token: '[redacted]'");
    for (const form of [KEY, json(KEY), url, 'ops-token-5678']) expect(printed).not.toContain(form);
  });

  it('prints the one-line summary the CLI made of an expected failure, scrubbed', () => {
    const error = new Error('connect ECONNREFUSED');
    expect(formatFatalError(error, [KEY], `cannot connect to ${json(KEY)}@db:5432`)).toBe(
      'error: cannot connect to [redacted]@db:5432',
    );
  });

  it('prints a thrown value that is not an error', () => {
    expect(formatFatalError(`a string with ${KEY}`, [KEY])).toBe("'a string with [redacted]'");
  });
});
