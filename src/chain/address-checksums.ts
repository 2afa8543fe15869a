import { keccak_256 } from '@noble/hashes/sha3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
// Address.js alone: the package's index loads the whole of @ton/core (cells, dictionaries), about
// 90 ms more at every start, for the one class an address needs.
import { Address as TonAddress } from '@ton/core/dist/address/Address.js';

/**
 * The checksums and encodings of the address formats, each through the library made for it: bech32
 * and bech32m with BIP 173/350's witness rules, base58 and Base58Check (@scure/base), EIP-55
 * (keccak-256 of @noble/hashes), TON's user-friendly form with its CRC16 (@ton/core).
 */

/** A value read, or why a text of its format's shape is not one. */
export type Checked<T> = { value: T } | { problem: string };

/** A segwit address: its network's prefix (bc, tb, bcrt), witness version and program. */
export interface SegwitAddress {
  prefix: string;
  version: number;
  program: Uint8Array;
}

/**
 * A segwit address (BIP 173, BIP 350): a valid bech32 checksum for witness version 0 and bech32m for
 * 1 to 16; a program of 2 to 40 bytes, of 20 or 32 for version 0 (BIP 141).
 */
export function decodeSegwit(text: string): Checked<SegwitAddress> {
  const asBech32 = bech32.decodeUnsafe(text);
  const decoded = asBech32 ?? bech32m.decodeUnsafe(text);
  if (!decoded) return { problem: 'its bech32 checksum fails (a mistyped character?)' };
  const [version, ...data] = decoded.words;
  if (version === undefined) return { problem: 'it has no witness version' };
  if (version > 16) return { problem: `witness version ${version} does not exist (0 to 16)` };
  const written = asBech32 ? 'bech32' : 'bech32m';
  const expected = version === 0 ? 'bech32' : 'bech32m';
  if (written !== expected)
    return { problem: `witness version ${version} is written with a ${expected} checksum (BIP 350), not ${written}` };
  const program = bech32.fromWordsUnsafe(data);
  if (!program) return { problem: 'its witness program has invalid padding' };
  const lengths = version === 0 ? '20 or 32' : '2 to 40';
  const fits =
    version === 0 ? program.length === 20 || program.length === 32 : program.length >= 2 && program.length <= 40;
  if (!fits)
    return {
      problem: `witness version ${version} takes a program of ${lengths} bytes, this one has ${program.length}`,
    };
  return { value: { prefix: decoded.prefix, version, program } };
}

/** The bytes of a base58 text; undefined when a character is not base58. Leading '1's are zero bytes. */
export function base58Bytes(text: string): Uint8Array | undefined {
  try {
    return base58.decode(text);
  } catch {
    return undefined;
  }
}

/** Version bytes of legacy Bitcoin addresses: P2PKH and P2SH on mainnet and testnet. */
const BITCOIN_VERSIONS = new Set([0x00, 0x05, 0x6f, 0xc4]);
const base58check = createBase58check(sha256);

/**
 * A legacy Bitcoin address (25 bytes of a known version) whose Base58Check checksum holds; undefined
 * when the bytes are no such address, a problem when only the checksum fails.
 */
export function checkBase58Bitcoin(text: string, bytes: Uint8Array): Checked<string> | undefined {
  if (bytes.length !== 25 || !BITCOIN_VERSIONS.has(bytes[0]!)) return undefined;
  try {
    base58check.decode(text);
    return { value: text };
  } catch {
    return { problem: 'its Base58Check checksum fails (a mistyped character?)' };
  }
}

/**
 * Whether a 40-hex-digit EVM address's letters carry its EIP-55 checksum: a letter is upper-case
 * where the keccak-256 of the lower-case hex has a nibble of 8 or more. All-lower and all-upper
 * spellings carry none, and are taken as they are.
 */
export function matchesEip55(hexDigits: string): boolean {
  const lower = hexDigits.toLowerCase();
  if (hexDigits === lower || hexDigits === hexDigits.toUpperCase()) return true;
  const hash = keccak_256(new TextEncoder().encode(lower));
  for (let i = 0; i < hexDigits.length; i += 1) {
    const char = hexDigits[i]!;
    if (char >= '0' && char <= '9') continue;
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    if ((char !== char.toLowerCase()) !== nibble >= 8) return false;
  }
  return true;
}

/** A TON account: its workchain (0, or -1 for the masterchain), its 32-byte hash, and whether it is a testnet one. */
export interface TonAccount {
  workchain: number;
  hash: Uint8Array;
  testnet: boolean;
}

/** TEP-2: only the basechain (0) and the masterchain (-1) exist. */
const TON_WORKCHAINS = new Set([0, -1]);

/** The account of a user-friendly TON address (48 characters of base64 or base64url); undefined when its tag, workchain or CRC fails. */
export function decodeTonFriendly(text: string): TonAccount | undefined {
  let parsed: ReturnType<typeof TonAddress.parseFriendly>;
  try {
    parsed = TonAddress.parseFriendly(text);
  } catch {
    // A bad CRC throws an Error, a bad tag a string: either way, no TON address.
    return undefined;
  }
  const { address, isTestOnly } = parsed;
  if (!TON_WORKCHAINS.has(address.workChain)) return undefined;
  return { workchain: address.workChain, hash: address.hash, testnet: isTestOnly };
}

/** The bounceable user-friendly spelling of a TON account, URL-safe base64 (`EQ…` on mainnet, `kQ…` on testnet). */
export function encodeTonFriendly(account: TonAccount): string {
  const address = new TonAddress(account.workchain, Buffer.from(account.hash));
  return address.toString({ urlSafe: true, bounceable: true, testOnly: account.testnet });
}
