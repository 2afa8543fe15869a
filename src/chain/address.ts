import { InvalidInputError } from '../errors.js';

/**
 * Wallet addresses of the chains the upstream serves. Hex addresses (EVM: 40 hex digits; SUI and
 * Aptos-style: 64) are case-insensitive and stored lower-case; base58 (Solana, legacy Bitcoin),
 * bech32 (Bitcoin) and TON addresses are case-sensitive and stored as given.
 */
const PATTERNS: { kind: string; pattern: RegExp; lowerCase: boolean }[] = [
  { kind: 'evm', pattern: /^0x[0-9a-fA-F]{40}$/, lowerCase: true },
  { kind: 'sui', pattern: /^0x[0-9a-fA-F]{64}$/, lowerCase: true },
  { kind: 'bitcoin-bech32', pattern: /^(bc1|tb1)[02-9ac-hj-np-z]{8,87}$/, lowerCase: false },
  { kind: 'ton', pattern: /^[EU]Q[A-Za-z0-9_-]{46}$/, lowerCase: false },
  { kind: 'ton-raw', pattern: /^-?[0-9]:[0-9a-fA-F]{64}$/, lowerCase: true },
  { kind: 'base58', pattern: /^[1-9A-HJ-NP-Za-km-z]{25,44}$/, lowerCase: false },
];

export function normalizeAddress(input: string): string {
  const address = input.trim();
  const match = PATTERNS.find(({ pattern }) => pattern.test(address));
  if (!match) {
    throw new InvalidInputError(
      `invalid address "${address}": expected a 0x address of 40 or 64 hex digits, a base58, bech32 or TON address`,
    );
  }
  return match.lowerCase ? address.toLowerCase() : address;
}

/** Chains the NFT-holdings operation accepts (upstream-api.md 4.3). */
export const NFT_CHAINS = [
  'BTC',
  'SOL',
  'SUI',
  'TON',
  'ETH',
  'FANTOM',
  'RON',
  'BNB',
  'OP',
  'AVAX',
  'MATIC',
  'ARB',
  'BASE',
  'SCROLL',
  'ZKSYNC',
  'ALL',
] as const;
export type NftChain = (typeof NFT_CHAINS)[number];

export function parseNftChain(input: string): NftChain {
  const chain = input.trim().toUpperCase();
  if (!(NFT_CHAINS as readonly string[]).includes(chain)) {
    throw new InvalidInputError(`unknown NFT chain "${input}": expected one of ${NFT_CHAINS.join(', ')}`);
  }
  return chain as NftChain;
}

/** A positions chain filter: the allowed values are not documented, so only the shape is checked. */
export function parseChainFilter(input: string): string {
  const chain = input.trim();
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(chain))
    throw new InvalidInputError(`invalid chain "${input}": expected a chain name such as sui`);
  return chain;
}
