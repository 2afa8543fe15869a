import { InvalidInputError } from '../errors.ts';

/**
 * SUI coin types ("0x2::sui::SUI", "0x…::pool::LP<0x2::sui::SUI>"). The upstream may spell the hex short
 * or upper-case, so watchlist and prices both normalize it to 0x + 64 lower-case hex (names as given).
 */
const ADDRESS = /^0x[0-9a-fA-F]{1,64}$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Bounds that make a hostile value a clean input error (the parse recurses once per generic level, so
 * deep nesting overflowed the stack); real types are about 90 characters and nest two or three deep.
 */
export const MAX_COIN_TYPE_LENGTH = 512;
export const MAX_GENERIC_DEPTH = 8;

/** Normal form of a coin type; throws InvalidInputError with the reason when it is not one. */
export function normalizeCoinType(input: string): string {
  const coinType = input.trim();
  if (coinType.length > MAX_COIN_TYPE_LENGTH) {
    throw invalid(
      coinType,
      `${coinType.length} characters, more than the ${MAX_COIN_TYPE_LENGTH} a coin type may have`,
    );
  }
  if (genericDepth(coinType) > MAX_GENERIC_DEPTH) {
    throw invalid(coinType, `type parameters nested more than ${MAX_GENERIC_DEPTH} deep`);
  }
  if (coinType.includes(',')) {
    throw new InvalidInputError(
      `coin type "${coinType}" contains a comma: the upstream takes a comma-separated list, so a type such as LP<A,B> cannot be requested`,
    );
  }
  return normalizeType(coinType, coinType);
}

function normalizeType(type: string, whole: string): string {
  const open = type.indexOf('<');
  const head = open === -1 ? type : type.slice(0, open);
  let generic = '';
  if (open !== -1) {
    if (!type.endsWith('>')) throw invalid(whole, 'unbalanced < >');
    const inner = type.slice(open + 1, -1);
    if (!inner) throw invalid(whole, 'empty type parameter');
    generic = `<${normalizeType(inner, whole)}>`;
  }
  const segments = head.split('::');
  if (segments.length !== 3) throw invalid(whole, 'expected address::module::Name');
  const [address, module, name] = segments as [string, string, string];
  if (!ADDRESS.test(address)) throw invalid(whole, 'the first segment must be 0x followed by 1 to 64 hex digits');
  if (!IDENTIFIER.test(module) || !IDENTIFIER.test(name)) throw invalid(whole, 'module and name must be identifiers');
  return `0x${address.slice(2).toLowerCase().padStart(64, '0')}::${module}::${name}${generic}`;
}

/** The deepest nesting of < > in the text (unbalanced brackets are reported by the parse). */
function genericDepth(type: string): number {
  let depth = 0;
  let deepest = 0;
  for (const char of type) {
    if (char === '<') deepest = Math.max(deepest, ++depth);
    else if (char === '>') depth--;
  }
  return deepest;
}

function invalid(coinType: string, reason: string): InvalidInputError {
  // A value past the length bound is shown by its start only: the error stays one line.
  const shown = coinType.length > MAX_COIN_TYPE_LENGTH ? `${coinType.slice(0, 80)}…` : coinType;
  return new InvalidInputError(`invalid coin type "${shown}": ${reason}`);
}

/** The short spelling the upstream may use: leading zeros of the address dropped ("0x2::sui::SUI"). */
export function shortCoinType(coinType: string): string {
  return normalizeCoinType(coinType).replace(/0x0*([0-9a-f]+)::/g, (_, hex: string) => `0x${hex}::`);
}
