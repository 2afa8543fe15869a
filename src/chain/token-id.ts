import { InvalidInputError } from '../errors.ts';
import { normalizeAddress } from './address.ts';
import { parseChainName, SUI_CHAIN } from './chain-name.ts';
import { normalizeCoinType } from './coin-type.ts';

/**
 * A token's identifier on its chain in one normal form: a SUI coin type as coin-type.ts writes it
 * (`0x…02::sui::SUI`), an address of a known format as address.ts does (EVM lower-case, base58 as
 * given), anything else as given, trimmed. null for an empty one.
 */
export function tokenId(value: string): string | null {
  const trimmed = value.trim();
  if (!trimmed) return null;
  // Only a coin type has "::" (an address never does): one attempt, not an error thrown and caught
  // per amount entry, which cost a worker measurable CPU.
  const normalize = trimmed.includes('::') ? normalizeCoinType : normalizeAddress;
  try {
    return normalize(trimmed);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return trimmed;
  }
}

/** A token of a chain, as the catalog keys it. */
export interface ChainToken {
  chain: string;
  token: string;
}

/** `<chain>:` before a token: a chain name and one colon (a coin type's first `::` is no chain). */
const CHAIN_PREFIX = /^([A-Za-z][A-Za-z0-9_-]*):(?!:)/;

/**
 * A token as a person names it (`chaintap report prices --tokens`): `<chain>:<token>`
 * (`ethereum:0xa0b8…eb48`, `solana:EPjF…Dt1v`, `sui:0x2::sui::SUI`), or a bare SUI coin type
 * (`0x2::sui::SUI`), whose chain is sui. A SUI token must be a coin type; InvalidInputError otherwise.
 */
export function parseChainToken(input: string): ChainToken {
  const text = input.trim();
  const prefix = CHAIN_PREFIX.exec(text);
  if (!prefix) return { chain: SUI_CHAIN, token: bareCoinType(text) };
  const chain = parseChainName(prefix[1]!);
  const rest = text.slice(prefix[0].length);
  if (chain === SUI_CHAIN) return { chain, token: normalizeCoinType(rest) };
  const token = tokenId(rest);
  if (token === null) throw new InvalidInputError(`"${text.slice(0, 80)}" names no token after its chain`);
  return { chain, token };
}

/** A token named without a chain: a SUI coin type, or an error that says how to name another chain's. */
function bareCoinType(text: string): string {
  try {
    return normalizeCoinType(text);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    throw new InvalidInputError(
      `${error.message}; a token of another chain is named with its chain: <chain>:<token>, e.g. ethereum:0xa0b8…`,
    );
  }
}

/** How parseChainToken reads it back: a SUI coin type bare, any other token with its chain. */
export function chainTokenText({ chain, token }: ChainToken): string {
  return chain === SUI_CHAIN ? token : `${chain}:${token}`;
}
