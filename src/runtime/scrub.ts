import { inspect } from 'node:util';
import { ChaintapError } from '../errors.ts';

/** What a secret is replaced with. */
const REDACTED = '[redacted]';

/** Shorter values are not scrubbed: they would match too much to mean anything (and are no secret). */
const MIN_SECRET_LENGTH = 4;

/**
 * Characters that neither URL-encoding (RFC 3986 unreserved) nor JSON-escaping changes: they only
 * ever appear as themselves. Every form of a secret holds its longest run of them literally.
 */
const INVARIANT = /[A-Za-z0-9._~-]/;

/**
 * Every form a secret takes in a text, character by character, as an answer, a URL or a log line
 * shows it: as it is; URL-encoded (each UTF-8 byte as %XX in either case, encoded again as %25XX,
 * a space as +); JSON-escaped (\" \\ \/ \n..., \uXXXX in either case, escaped again inside another
 * JSON string). Mixed forms match too. Letters, digits and - . _ ~ only ever match as themselves.
 */
function secretPattern(secrets: readonly (string | undefined)[]): RegExp | undefined {
  const usable = [...new Set(secrets.filter(isScrubbable))].sort((a, b) => b.length - a.length);
  if (usable.length === 0) return undefined;
  return new RegExp(usable.map((secret) => [...secret].map(characterForms).join('')).join('|'), 'g');
}

/**
 * Replaces every form of the secrets (secretPattern) with [redacted]. A text without any secret's
 * literalCore is returned at once: one search per secret rather than the pattern's.
 */
export function secretScrubber(secrets: readonly (string | undefined)[]): (text: string) => string {
  const pattern = secretPattern(secrets);
  if (!pattern) return (text) => text;
  const cores = secrets.filter(isScrubbable).map(literalCore);
  const replace = (text: string) => text.replace(pattern, REDACTED);
  // A secret without such a piece (every character one an encoding changes): always the pattern.
  if (cores.some((core) => core === undefined)) return replace;
  return (text) => (cores.some((core) => text.includes(core!)) ? replace(text) : text);
}

/**
 * A piece of the secret that every form of it holds literally (its longest run of characters that
 * no encoding changes), for a quick search before the pattern's; undefined when it has none.
 */
export function literalCore(secret: string): string | undefined {
  let longest = '';
  let run = '';
  for (const char of secret) {
    run = INVARIANT.test(char) ? run + char : '';
    if (run.length > longest.length) longest = run;
  }
  return longest || undefined;
}

export function isScrubbable(secret: string | undefined): secret is string {
  return typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH;
}

/**
 * An error as the CLI prints it when nothing else caught it, secrets scrubbed: `error: <summary>` of
 * an expected failure, an error of ours (bad input, configuration) as its message alone, any other
 * with its stack, causes and properties (a bug: they help).
 */
export function formatFatalError(error: unknown, secrets: readonly (string | undefined)[], summary?: string): string {
  const text =
    summary !== undefined
      ? `error: ${summary}`
      : error instanceof ChaintapError
        ? `error: ${error.message}`
        : inspect(error, { depth: 4 });
  return secretScrubber(secrets)(text);
}

function characterForms(char: string): string {
  if (INVARIANT.test(char)) return escapeRegExp(char);
  const forms = [
    escapeRegExp(char),
    // Its UTF-8 bytes as %XX each (hex in either case), or encoded twice (%25XX).
    [...Buffer.from(char, 'utf8')].map((byte) => `%(?:25)*${hexForms(byte, 2)}`).join(''),
    // JSON escapes, behind any number of backslashes (a JSON string inside another).
    Array.from({ length: char.length }, (_, i) => `\\\\+u${hexForms(char.charCodeAt(i), 4)}`).join(''),
  ];
  const short = SHORT_ESCAPES[char];
  if (short !== undefined) forms.push(`\\\\+${escapeRegExp(short)}`);
  if (char === ' ') forms.push('\\+');
  return `(?:${forms.join('|')})`;
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  '\b': 'b',
  '\f': 'f',
  '\n': 'n',
  '\r': 'r',
  '\t': 't',
};

/** `value` as `digits` hex digits, each letter in either case: 0x2f -> 2[fF]. */
function hexForms(value: number, digits: number): string {
  return [...value.toString(16).padStart(digits, '0')]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
