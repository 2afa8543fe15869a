import { InvalidInputError } from '../errors.ts';
import {
  base58Decode,
  decodeTonFriendly,
  encodeTonFriendly,
  isBase58BitcoinAddress,
  isSegwitAddress,
} from './address-checksums.ts';

/**
 * Wallet addresses in a normal form, so that two spellings of one wallet are one watched address. Hex
 * is lower-cased (shorter 0x forms refused, never padded), base58 kept as given (it is case-sensitive),
 * bech32 lower-cased, TON stored as the bounceable base64url form (EQ…; kQ… on testnet); checksums checked.
 */

/** How a format is named in lists and pages. */
export const ADDRESS_FORMAT_LABELS = { sui: 'SUI', evm: 'EVM', solana: 'Solana', bitcoin: 'Bitcoin', ton: 'TON' };
export type AddressFormat = keyof typeof ADDRESS_FORMAT_LABELS;

/** How a format is named in an error. */
const FORMAT_DESCRIPTIONS: Record<AddressFormat, string> = {
  sui: 'a SUI address (0x and 64 hex digits)',
  evm: 'an EVM address (0x and 40 hex digits)',
  solana: 'a Solana address (base58 of 32 bytes)',
  bitcoin: 'a Bitcoin address (bech32 bc1… or base58 1…/3…)',
  ton: 'a TON address (EQ…/UQ… or workchain:hex)',
};

export type ParsedAddress = { address: string; format: AddressFormat };

const HEX_ADDRESS = /^0x[0-9a-fA-F]+$/;
const BECH32_ADDRESS = /^(bc|tb|bcrt)1[02-9ac-hj-np-z]{6,87}$/;
const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]{25,44}$/;
const TON_FRIENDLY = /^[A-Za-z0-9+/_-]{48}$/;
const TON_RAW = /^(-1|0):([0-9a-fA-F]{64})$/;

/** The format and normal form of an address; undefined when it is none of the formats (or its checksum fails). */
export function readAddress(input: string): ParsedAddress | undefined {
  const text = input.trim();
  if (HEX_ADDRESS.test(text)) {
    const digits = text.length - 2;
    if (digits === 64) return { address: text.toLowerCase(), format: 'sui' };
    if (digits === 40) return { address: text.toLowerCase(), format: 'evm' };
    return undefined;
  }
  // bech32 is all lower-case or all upper-case (BIP 173); the normal form is lower-case.
  const lower = text.toLowerCase();
  if ((text === lower || text === text.toUpperCase()) && BECH32_ADDRESS.test(lower) && isSegwitAddress(lower)) {
    return { address: lower, format: 'bitcoin' };
  }
  const raw = TON_RAW.exec(text);
  if (raw) {
    const hash = Buffer.from(raw[2]!, 'hex');
    return { address: encodeTonFriendly({ workchain: Number(raw[1]), hash, testnet: false }), format: 'ton' };
  }
  if (TON_FRIENDLY.test(text)) {
    const account = decodeTonFriendly(text);
    if (account) return { address: encodeTonFriendly(account), format: 'ton' };
  }
  if (BASE58_TEXT.test(text)) {
    const bytes = base58Decode(text);
    if (bytes?.length === 32) return { address: text, format: 'solana' };
    if (bytes && isBase58BitcoinAddress(bytes)) return { address: text, format: 'bitcoin' };
  }
  return undefined;
}

/** The format and normal form of an address; InvalidInputError, naming the formats, when it is none of them. */
export function parseAddress(input: string): ParsedAddress {
  const parsed = readAddress(input);
  if (parsed) return parsed;
  throw new InvalidInputError(
    `invalid address "${shown(input.trim())}": expected ${Object.values(FORMAT_DESCRIPTIONS).join(', ')}`,
  );
}

/** The normal form of an address of any chain the upstream serves (see parseAddress). */
export function normalizeAddress(input: string): string {
  return parseAddress(input).address;
}

/** Chains the NFT-holdings operation accepts (upstream-api.md 4.3). */
const EVM_CHAINS = ['ETH', 'FANTOM', 'RON', 'BNB', 'OP', 'AVAX', 'MATIC', 'ARB', 'BASE', 'SCROLL', 'ZKSYNC'] as const;
export const NFT_CHAINS = ['BTC', 'SOL', 'SUI', 'TON', ...EVM_CHAINS, 'ALL'] as const;
export type NftChain = (typeof NFT_CHAINS)[number];

export function parseNftChain(input: string): NftChain {
  const chain = input.trim().toUpperCase();
  if (!(NFT_CHAINS as readonly string[]).includes(chain)) {
    throw new InvalidInputError(`unknown NFT chain "${shown(input)}": expected one of ${NFT_CHAINS.join(', ')}`);
  }
  return chain as NftChain;
}

/** The NFT chains that take addresses of a format, ALL last. */
export function nftChainsFor(format: AddressFormat): NftChain[] {
  return NFT_CHAINS.filter((chain) => chain === 'ALL' || positionsChainFormat(chain) === format);
}

/** A positions chain filter: the allowed values are not documented, so only the shape is checked. */
export function parseChainFilter(input: string): string {
  const chain = input.trim();
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(chain))
    throw new InvalidInputError(`invalid chain "${shown(input)}": expected a chain name such as sui`);
  return chain;
}

/** EVM chain names: the NFT chains' and more that a positions chain filter may use. */
const EVM_CHAIN_NAMES = [
  ...EVM_CHAINS.map((chain) => chain.toLowerCase()),
  ...['ethereum', 'arbitrum', 'optimism', 'polygon', 'bsc', 'avalanche', 'ftm', 'ronin', 'linea', 'blast', 'mantle'],
];

/**
 * Chain names whose address format is known (compared lower-case): every NFT chain but ALL, and
 * more names for the positions chain filter. That filter is free text: a name not listed here is
 * passed on with an address of any format.
 */
const CHAIN_FORMATS: Record<string, AddressFormat> = {
  sui: 'sui',
  sol: 'solana',
  solana: 'solana',
  btc: 'bitcoin',
  bitcoin: 'bitcoin',
  ton: 'ton',
  ...Object.fromEntries(EVM_CHAIN_NAMES.map((name) => [name, 'evm' as const])),
};

/** The address format a chain (a positions chain filter, an NFT chain) takes; undefined when not known. */
export function positionsChainFormat(chain: string): AddressFormat | undefined {
  return CHAIN_FORMATS[chain.trim().toLowerCase()];
}

/**
 * Refuses an address on a chain whose address format is known and differs from the address's, with
 * an error naming both: the positions chain filter and the NFT chain, each when given.
 */
export function checkAddressChains(
  { address, format }: ParsedAddress,
  { positionsChain, nftChain }: { positionsChain?: string | null; nftChain?: NftChain },
): void {
  const is = `address ${shown(address)} is ${FORMAT_DESCRIPTIONS[format]}`;
  const nftFormat = nftChain && positionsChainFormat(nftChain);
  if (nftFormat && nftFormat !== format) {
    throw new InvalidInputError(
      `${is}, and NFT chain ${nftChain} takes ${FORMAT_DESCRIPTIONS[nftFormat]}: use --nft-chain ${nftChainsFor(format).join(' or ')}`,
    );
  }
  const chainFormat = positionsChain && positionsChainFormat(positionsChain);
  if (chainFormat && chainFormat !== format) {
    throw new InvalidInputError(
      `${is}, and positions chain ${positionsChain} takes ${FORMAT_DESCRIPTIONS[chainFormat]}: use a chain of ${ADDRESS_FORMAT_LABELS[format]} addresses, or no --chain`,
    );
  }
}

/** An input as an error shows it: a hostile value of any length stays one line of an error. */
function shown(input: string): string {
  const line = input.replace(/[\r\n]+/g, ' ');
  return line.length > 100 ? `${line.slice(0, 100)}… (${line.length} characters)` : line;
}
