// Character codes the scan below reads.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const WHITESPACE = new Set([0x20, 0x0a, 0x0d, 0x09]);

/**
 * How many JSON values `text` holds at any depth (objects, lists, strings, numbers, booleans, nulls;
 * keys not counted), read without parsing it: what an answer would cost once parsed and normalized
 * is known before anything is built. Read as UTF-8 bytes, before they are even decoded (no byte of
 * a multi-byte character is ASCII, so the structure reads the same). Stops once the count passes
 * `limit`. Text that is not JSON gets a count all the same (JSON.parse says what is wrong with it).
 */
export function countJsonValues(text: string | Uint8Array, limit = Number.POSITIVE_INFINITY): number {
  // A string is copied outside the JavaScript heap, where the scan reads bytes fastest.
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  // Per open container, whether it is a list (where a comma starts a value; in an object, a key).
  const inList: boolean[] = [];
  let values = 0;
  // At the start, or after `[`, `:` or a list's comma: what comes next is a value.
  let valueNext = true;
  for (let i = 0; i < bytes.length && values <= limit; i++) {
    const code = bytes[i]!;
    if (WHITESPACE.has(code)) continue;
    if (code === OPEN_LIST || code === OPEN_OBJECT) {
      if (valueNext) values++;
      inList.push(code === OPEN_LIST);
      valueNext = code === OPEN_LIST;
    } else if (code === CLOSE_LIST || code === CLOSE_OBJECT) {
      inList.pop();
      valueNext = false;
    } else if (code === COLON) {
      valueNext = true;
    } else if (code === COMMA) {
      valueNext = inList.at(-1) === true;
    } else {
      // A string (a key when no value is due), or the first byte of a number, true, false or null.
      if (valueNext) values++;
      valueNext = false;
      if (code === QUOTE) i = closingQuote(bytes, i);
    }
  }
  return values;
}

/** Where the string opened at `start` ends (the text's end when it does not). */
function closingQuote(bytes: Uint8Array, start: number): number {
  for (let at = bytes.indexOf(QUOTE, start + 1); at >= 0; at = bytes.indexOf(QUOTE, at + 1)) {
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return bytes.length;
}
