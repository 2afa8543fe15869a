import { deflateSync, inflateSync } from 'node:zlib';

/**
 * How raw response bodies are stored: zlib (RFC 1950), against a dictionary where that pays. A
 * target's answers repeat from tick to tick in everything but their numbers (ids, addresses, field
 * names), so a body compressed with an earlier body of the same target as its dictionary keeps
 * little more than what changed: a 11 KB positions answer takes about 0.7 KB instead of 3 KB
 * compressed alone. The dictionary is itself an earlier body, stored once (raw_body_dictionaries)
 * and shared by the target's bodies of up to a day. zlib records the dictionary's checksum, so a
 * body never inflates against the wrong one. Pure.
 */

/** A dictionary older than this is not used for new bodies (so that it can go with their retention). */
export const DICTIONARY_MAX_AGE_MS = 24 * 3600 * 1000;
/** Bodies shorter than this are compressed alone: a dictionary would save a few bytes. */
export const MIN_DICTIONARY_BODY_BYTES = 512;
/**
 * A dictionary is kept while a body compressed with it is at most this share of the dictionary's
 * own body compressed alone (an earlier answer of the same target: about what this one would take).
 */
const MAX_DICTIONARY_RATIO = 0.5;

/** A target's newest dictionary, as stored. */
export interface RawBodyDictionary {
  id: number;
  createdAt: Date;
  /** The dictionary's own bytes, compressed alone (raw_body_dictionaries.body_zlib). */
  bodyZlib: Buffer;
}

export interface EncodedRawBody {
  bodyZlib: Buffer;
  /** The dictionary the body was compressed with: a stored one, one to store now (its body_zlib), or none. */
  dictionary: { id: number } | { create: Buffer } | null;
}

/**
 * The stored form of a body. A successful answer of a target is compressed with the target's
 * current dictionary while that is younger than a day and still pays (see MAX_DICTIONARY_RATIO);
 * otherwise the body becomes the target's new dictionary. Error answers and short bodies are
 * compressed alone.
 */
export function encodeRawBody(
  body: string,
  options: { success: boolean; receivedAt: Date; current: RawBodyDictionary | null },
): EncodedRawBody {
  const bytes = Buffer.from(body, 'utf8');
  if (!options.success || bytes.length < MIN_DICTIONARY_BODY_BYTES)
    return { bodyZlib: deflateSync(bytes), dictionary: null };
  const { current, receivedAt } = options;
  if (current && receivedAt.getTime() - current.createdAt.getTime() < DICTIONARY_MAX_AGE_MS) {
    const withCurrent = deflateSync(bytes, { dictionary: inflateSync(current.bodyZlib) });
    if (withCurrent.length <= current.bodyZlib.length * MAX_DICTIONARY_RATIO)
      return { bodyZlib: withCurrent, dictionary: { id: current.id } };
  }
  return { bodyZlib: deflateSync(bytes, { dictionary: bytes }), dictionary: { create: deflateSync(bytes) } };
}

/** The body as received, from its stored form and, when it has one, its dictionary's body_zlib. */
export function decodeRawBody(bodyZlib: Buffer, dictionaryZlib: Buffer | null): string {
  const dictionary = dictionaryZlib === null ? undefined : inflateSync(dictionaryZlib);
  return inflateSync(bodyZlib, dictionary === undefined ? {} : { dictionary }).toString('utf8');
}
