import { InvalidInputError } from '../errors.ts';

/**
 * Wallet addresses of the chains the upstream serves. Hex addresses (EVM: 40 hex digits; SUI: 64)
 * are case-insensitive and stored lower-case; base58 (Solana, legacy Bitcoin), bech32 (Bitcoin) and
 * TON addresses are case-sensitive and stored as given.
 */
export type AddressKind = 'sui' | 'evm' | 'bitcoin-bech32' | 'ton' | 'ton-raw' | 'base58';

const PATTERNS: { kind: AddressKind; pattern: RegExp; lowerCase: boolean }[] = [
  { kind: 'evm', pattern: /^0x[0-9a-fA-F]{40}$/, lowerCase: true },
  { kind: 'sui', pattern: /^0x[0-9a-fA-F]{64}$/, lowerCase: true },
  { kind: 'bitcoin-bech32', pattern: /^(bc1|tb1)[02-9ac-hj-np-z]{8,87}$/, lowerCase: false },
  { kind: 'ton', pattern: /^[EU]Q[A-Za-z0-9_-]{46}$/, lowerCase: false },
  { kind: 'ton-raw', pattern: /^-?[0-9]:[0-9a-fA-F]{64}$/, lowerCase: true },
  { kind: 'base58', pattern: /^[1-9A-HJ-NP-Za-km-z]{25,44}$/, lowerCase: false },
];

/** How each kind is named in an error. */
const KIND_NAMES: Record<AddressKind, string> = {
  sui: 'a SUI address (0x and 64 hex digits)',
  evm: 'an EVM address (0x and 40 hex digits)',
  'bitcoin-bech32': 'a bech32 Bitcoin address',
  ton: 'a TON address',
  'ton-raw': 'a raw TON address',
  base58: 'a base58 address (Solana, legacy Bitcoin)',
};

/** The kind of a trimmed address, or undefined when it is none of them. */
export function addressKind(address: string): AddressKind | undefined {
  return PATTERNS.find(({ pattern }) => pattern.test(address))?.kind;
}

/** Any address of a chain the upstream serves (as path segment of its address operations). */
export function normalizeAddress(input: string): string {
  const address = input.trim();
  const match = PATTERNS.find(({ pattern }) => pattern.test(address));
  if (!match) {
    throw new InvalidInputError(
      `invalid address "${shown(address)}": expected a 0x address of 40 or 64 hex digits, a base58, bech32 or TON address`,
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

const EVM: AddressKind[] = ['evm'];

/**
 * The address kinds an NFT-holdings query on each chain can name: the chain's own wallet format
 * (ALL takes any). Base58 is Solana's format and legacy Bitcoin's.
 */
export const NFT_CHAIN_ADDRESS_KINDS: Record<Exclude<NftChain, 'ALL'>, AddressKind[]> = {
  BTC: ['bitcoin-bech32', 'base58'],
  SOL: ['base58'],
  SUI: ['sui'],
  TON: ['ton', 'ton-raw'],
  ETH: EVM,
  FANTOM: EVM,
  RON: EVM,
  BNB: EVM,
  OP: EVM,
  AVAX: EVM,
  MATIC: EVM,
  ARB: EVM,
  BASE: EVM,
  SCROLL: EVM,
  ZKSYNC: EVM,
};

export function parseNftChain(input: string): NftChain {
  const chain = input.trim().toUpperCase();
  if (!(NFT_CHAINS as readonly string[]).includes(chain)) {
    throw new InvalidInputError(`unknown NFT chain "${input}": expected one of ${NFT_CHAINS.join(', ')}`);
  }
  return chain as NftChain;
}

/** Whether an NFT-holdings query on `chain` can name an address of this kind. */
export function nftChainAccepts(chain: NftChain, kind: AddressKind): boolean {
  return chain === 'ALL' || NFT_CHAIN_ADDRESS_KINDS[chain].includes(kind);
}

/**
 * An address the positions operation can query: positions are SUI-only, so a SUI address (0x and
 * exactly 64 hex digits; a shorter 0x form is not padded, as it could be an EVM address), lower-case.
 */
export function normalizePositionsAddress(input: string): string {
  const address = input.trim();
  const kind = addressKind(address);
  if (kind === 'sui') return address.toLowerCase();
  const found = kind ? `: this is ${KIND_NAMES[kind]}` : '';
  throw new InvalidInputError(
    `invalid address "${shown(address)}": positions are SUI-only, expected ${KIND_NAMES.sui}${found}`,
  );
}

/**
 * The NFT chain of a watched address: every watched address is queried for positions (SUI-only)
 * and for NFT holdings on this chain, so the chain must take SUI addresses (SUI or ALL).
 */
export function parseWatchedNftChain(input: string): NftChain {
  const chain = parseNftChain(input);
  if (!nftChainAccepts(chain, 'sui')) {
    const kinds = NFT_CHAIN_ADDRESS_KINDS[chain as Exclude<NftChain, 'ALL'>].map((kind) => KIND_NAMES[kind]);
    throw new InvalidInputError(
      `NFT chain ${chain} takes ${kinds.join(' or ')}, and a watched address is a SUI address (positions are SUI-only): use --nft-chain SUI or ALL`,
    );
  }
  return chain;
}

/** A positions chain filter: the allowed values are not documented, so only the shape is checked. */
export function parseChainFilter(input: string): string {
  const chain = input.trim();
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(chain))
    throw new InvalidInputError(`invalid chain "${shown(input)}": expected a chain name such as sui`);
  return chain;
}

/** An input as an error shows it: a hostile value of any length stays one line of an error. */
function shown(input: string): string {
  return input.length > 100 ? `${input.slice(0, 100)}… (${input.length} characters)` : input;
}
