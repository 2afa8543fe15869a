import { inflateSync } from 'node:zlib';

/**
 * The zlib form raw bodies had from migration 0007 to 0017: the body's UTF-8 bytes compressed with
 * zlib (RFC 1950), against an earlier body of the same target as the dictionary (stored compressed
 * alone in raw_body_dictionaries) or alone. Only read now: `chaintap migrate` turns such rows into
 * text (raw-body-conversion.ts), and `chaintap raw` reads one not converted yet. zlib records the
 * dictionary's checksum, so a body never inflates against the wrong one. Pure.
 */
export function decodeRawBody(bodyZlib: Buffer, dictionaryZlib: Buffer | null): string {
  const dictionary = dictionaryZlib === null ? undefined : inflateSync(dictionaryZlib);
  return inflateSync(bodyZlib, dictionary === undefined ? {} : { dictionary }).toString('utf8');
}
