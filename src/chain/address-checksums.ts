import { createHash } from 'node:crypto';

/** Encodings and checksums of the non-hex address formats: base58, bech32/bech32m (BIP 173, 350), TON's (CRC16). */

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** The bytes of a base58 string; undefined when a character is not base58. Leading '1's are zero bytes. */
export function base58Decode(text: string): Uint8Array | undefined {
  let value = 0n;
  for (const char of text) {
    const digit = BASE58_ALPHABET.indexOf(char);
    if (digit === -1) return undefined;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros += 1;
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes]);
}

/** Version bytes of legacy Bitcoin addresses: P2PKH and P2SH on mainnet and testnet. */
const BITCOIN_VERSIONS = new Set([0x00, 0x05, 0x6f, 0xc4]);

/** A legacy Bitcoin address: 25 bytes, a known version, and the first 4 bytes of SHA-256(SHA-256(payload)) last. */
export function isBase58BitcoinAddress(bytes: Uint8Array): boolean {
  if (bytes.length !== 25 || !BITCOIN_VERSIONS.has(bytes[0]!)) return false;
  const payload = bytes.subarray(0, 21);
  const digest = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest();
  return digest.subarray(0, 4).equals(bytes.subarray(21));
}

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
const BECH32_CONSTANT = 1;
const BECH32M_CONSTANT = 0x2bc830a3;

function bech32Polymod(values: number[]): number {
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    BECH32_GENERATOR.forEach((generator, i) => {
      if ((top >>> i) & 1) checksum ^= generator;
    });
  }
  return checksum >>> 0;
}

/** A lower-case segwit address whose checksum holds: bech32 for witness version 0, bech32m for 1 to 16. */
export function isSegwitAddress(lowerCase: string): boolean {
  const separator = lowerCase.lastIndexOf('1');
  const hrp = lowerCase.slice(0, separator);
  const data = [...lowerCase.slice(separator + 1)].map((char) => BECH32_CHARSET.indexOf(char));
  if (data.length < 7 || data.includes(-1)) return false;
  const expanded = [...hrp].map((char) => char.charCodeAt(0) >> 5);
  expanded.push(0, ...[...hrp].map((char) => char.charCodeAt(0) & 31));
  const version = data[0]!;
  if (version > 16) return false;
  return bech32Polymod([...expanded, ...data]) === (version === 0 ? BECH32_CONSTANT : BECH32M_CONSTANT);
}

/** CRC-16/XMODEM, the checksum of TON's user-friendly addresses. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** A TON account: its workchain, its 32-byte hash, and whether the spelling was a testnet one. */
type TonAccount = { workchain: number; hash: Uint8Array; testnet: boolean };

const TON_BOUNCEABLE = 0x11;
const TON_NON_BOUNCEABLE = 0x51;
const TON_TESTNET = 0x80;

/** The account of a user-friendly TON address (48 characters of base64 or base64url); undefined when its CRC fails. */
export function decodeTonFriendly(text: string): TonAccount | undefined {
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 36) return undefined;
  const flag = bytes[0]! & ~TON_TESTNET;
  if (flag !== TON_BOUNCEABLE && flag !== TON_NON_BOUNCEABLE) return undefined;
  if (crc16(bytes.subarray(0, 34)) !== bytes.readUInt16BE(34)) return undefined;
  return { workchain: bytes.readInt8(1), hash: bytes.subarray(2, 34), testnet: (bytes[0]! & TON_TESTNET) !== 0 };
}

/** The bounceable user-friendly spelling of a TON account, URL-safe base64 (`EQ…` on mainnet). */
export function encodeTonFriendly(account: TonAccount): string {
  const bytes = Buffer.alloc(36);
  bytes[0] = TON_BOUNCEABLE | (account.testnet ? TON_TESTNET : 0);
  bytes.writeInt8(account.workchain, 1);
  bytes.set(account.hash, 2);
  bytes.writeUInt16BE(crc16(bytes.subarray(0, 34)), 34);
  return bytes.toString('base64url');
}
