import { InvalidInputError } from '../errors.ts';
import {
  base58Bytes,
  checkBase58Bitcoin,
  decodeSegwit,
  decodeTonFriendly,
  encodeTonFriendly,
  matchesEip55,
  type Checked,
} from './address-checksums.ts';
import { ADDRESS_FORMAT_LABELS, EVM_CHAINS, NFT_CHAINS, type AddressFormat, type NftChain } from './address-formats.ts';

/**
 * Wallet addresses in a normal form, so that two spellings of one wallet are one watched address. Hex
 * is lower-cased (shorter 0x forms refused, never padded), base58 kept as given (it is case-sensitive),
 * bech32 lower-cased, TON stored as the bounceable base64url form (EQ…; kQ… on testnet); checksums
 * checked (address-checksums.ts).
 */

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

/**
 * An address in its normal form; a problem when the text has a format's shape but fails its rules
 * (a checksum, a witness program's length); undefined when it has no format's shape.
 */
function read(text: string): Checked<ParsedAddress> | undefined {
  if (HEX_ADDRESS.test(text)) {
    const digits = text.length - 2;
    if (digits === 64) return { value: { address: text.toLowerCase(), format: 'sui' } };
    if (digits !== 40) return undefined;
    if (!matchesEip55(text.slice(2))) {
      return {
        problem:
          'an EVM address in mixed case carries an EIP-55 checksum, and the case of its letters does not match it (a mistyped character?)',
      };
    }
    return { value: { address: text.toLowerCase(), format: 'evm' } };
  }
  // bech32 is all lower-case or all upper-case (BIP 173); the normal form is lower-case.
  const lower = text.toLowerCase();
  if (BECH32_ADDRESS.test(lower)) {
    if (text !== lower && text !== text.toUpperCase()) return { problem: 'a bech32 address is in one case, not mixed' };
    const segwit = decodeSegwit(lower);
    return 'problem' in segwit ? segwit : { value: { address: lower, format: 'bitcoin' } };
  }
  const raw = TON_RAW.exec(text);
  if (raw) {
    const hash = Buffer.from(raw[2]!, 'hex');
    return {
      value: { address: encodeTonFriendly({ workchain: Number(raw[1]), hash, testnet: false }), format: 'ton' },
    };
  }
  const ton = TON_FRIENDLY.test(text) ? decodeTonFriendly(text) : undefined;
  if (ton) return { value: { address: encodeTonFriendly(ton), format: 'ton' } };
  const bytes = BASE58_TEXT.test(text) ? base58Bytes(text) : undefined;
  if (bytes?.length === 32) return { value: { address: text, format: 'solana' } };
  const legacy = bytes && checkBase58Bitcoin(text, bytes);
  if (legacy) return 'problem' in legacy ? legacy : { value: { address: text, format: 'bitcoin' } };
  return undefined;
}

/** The format and normal form of an address; undefined when it is none of the formats (or fails its checksum). */
export function readAddress(input: string): ParsedAddress | undefined {
  const reading = read(input.trim());
  return reading && 'value' in reading ? reading.value : undefined;
}

/**
 * The format and normal form of an address; InvalidInputError when it is none of them (naming them),
 * or says why when it has a format's shape but fails its rules.
 */
export function parseAddress(input: string): ParsedAddress {
  const reading = read(input.trim());
  if (reading && 'value' in reading) return reading.value;
  const why = reading ? reading.problem : `expected ${Object.values(FORMAT_DESCRIPTIONS).join(', ')}`;
  throw new InvalidInputError(`invalid address "${shown(input.trim())}": ${why}`);
}

/** The normal form of an address of any chain the upstream serves (see parseAddress). */
export function normalizeAddress(input: string): string {
  return parseAddress(input).address;
}

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
