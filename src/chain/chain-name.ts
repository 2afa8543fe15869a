import { InvalidInputError } from '../errors.ts';

/**
 * The chain a stored price belongs to, in one spelling: positions answers name chains in free text
 * (`SUI`, `ETH`, `ethereum`, `arbitrum`) and NFT groups by the NFT chain list (`SOL`, `ARB`), so
 * that a token of one chain is one catalog row whoever named it. Lower-case, the NFT list's short
 * names spelled out; any other name of the same shape as given, lower-cased.
 */
const SPELLED_OUT: Record<string, string> = {
  eth: 'ethereum',
  arb: 'arbitrum',
  op: 'optimism',
  matic: 'polygon',
  bnb: 'bsc',
  avax: 'avalanche',
  ftm: 'fantom',
  ron: 'ronin',
  sol: 'solana',
  btc: 'bitcoin',
};

const CHAIN_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** The chain of SUI coin types: the price operation's only chain. */
export const SUI_CHAIN = 'sui';

/** A chain name in its one spelling; undefined when it is no chain name (empty, too long, odd characters). */
export function readChainName(label: string): string | undefined {
  const name = label.trim().toLowerCase();
  if (!CHAIN_NAME.test(name)) return undefined;
  return SPELLED_OUT[name] ?? name;
}

/** readChainName for input: InvalidInputError when it is no chain name. */
export function parseChainName(label: string): string {
  const name = readChainName(label);
  if (name === undefined)
    throw new InvalidInputError(
      `invalid chain "${label.slice(0, 40)}": expected a chain name such as sui, ethereum or solana (a letter, then letters, digits, - or _; at most 32)`,
    );
  return name;
}
