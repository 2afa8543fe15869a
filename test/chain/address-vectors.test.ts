import { bech32, bech32m } from '@scure/base';
import { Address as TonAddress } from '@ton/core/dist/address/Address.js';
import { describe, expect, it } from 'vitest';
import { decodeSegwit } from '../../src/chain/address-checksums.ts';
import { normalizeAddress, parseAddress, readAddress } from '../../src/chain/address.ts';

// The test vectors published with each format's specification, as published.

/** BIP 350's valid segwit addresses (v0 to v16) and the scriptPubKey each stands for. */
const SEGWIT_VALID: [string, string][] = [
  ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
  [
    'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
    '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
  ],
  [
    'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
    '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
  ],
  ['BC1SW50QGDZ25J', '6002751e'],
  ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323'],
  [
    'tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy',
    '0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433',
  ],
  [
    'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c',
    '5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433',
  ],
  [
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
  ],
];

/** BIP 350's and BIP 173's invalid segwit addresses, with the reason each gives. */
const SEGWIT_INVALID: [string, string][] = [
  // BIP 350
  ['tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut', 'invalid human-readable part'],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'bech32 instead of bech32m'],
  ['tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf', 'bech32 instead of bech32m'],
  ['BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL', 'bech32 instead of bech32m'],
  ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'bech32m instead of bech32'],
  ['tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47', 'bech32m instead of bech32'],
  ['bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', 'invalid character in checksum'],
  ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'invalid witness version'],
  ['bc1pw5dgrnzv', 'invalid program length (1 byte)'],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', 'program length (41 bytes)'],
  ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'program length for witness version 0 (BIP 141)'],
  ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq', 'mixed case'],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'zero padding of more than 4 bits'],
  ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j', 'non-zero padding in 8-to-5 conversion'],
  ['bc1gmk9yu', 'empty data section'],
  // BIP 173
  ['tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty', 'invalid human-readable part'],
  ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'invalid checksum'],
  ['BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2', 'invalid witness version'],
  ['bc1rw5uspcuh', 'invalid program length'],
  ['bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90', 'invalid program length'],
  ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'program length for witness version 0'],
  ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7', 'mixed case'],
  ['bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du', 'zero padding of more than 4 bits'],
  ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3pjxtptv', 'non-zero padding in 8-to-5 conversion'],
  // BIP 173's valid v1+ addresses, checksummed with bech32: BIP 350 made them invalid.
  ['bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx', 'v1 in bech32 (BIP 350)'],
  ['BC1SW50QA3JX3S', 'v16 in bech32 (BIP 350)'],
  ['bc1zw508d6qejxtdg4y5r3zarvaryvg6kdaj', 'v2 in bech32 (BIP 350)'],
  // The empty witness program that the hand-written check let through.
  ['bc1q9zpgru', 'empty witness program'],
];

/** BIP 173's and BIP 350's plain strings (no segwit rules): valid in one checksum, invalid in both otherwise. */
const BECH32_VALID = [
  'A12UEL5L',
  'a12uel5l',
  'an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs',
  'abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw',
  '11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqc8247j',
  'split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w',
  '?1ezyfcl',
];
const BECH32M_VALID = [
  'A1LQFN3A',
  'a1lqfn3a',
  'an83characterlonghumanreadablepartthatcontainsthetheexcludedcharactersbioandnumber11sg7hg6',
  'abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx',
  '11llllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllludsr8',
  'split1checkupstagehandshakeupstreamerranterredcaperredlc445v',
  '?1v759aa',
];
const BECH32_INVALID = [
  `${String.fromCharCode(0x20)}1nwldj5`,
  `${String.fromCharCode(0x7f)}1axkwrx`,
  `${String.fromCharCode(0x80)}1eym55h`,
  'an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx',
  'pzry9x0s0muk',
  '1pzry9x0s0muk',
  'x1b4n0q5v',
  'li1dgmt3',
  `de1lg7wt${String.fromCharCode(0xff)}`,
  'A1G7SGD8',
  '10a06t8',
  '1qzzfhee',
];
const BECH32M_INVALID = [
  `${String.fromCharCode(0x20)}1xj0phk`,
  `${String.fromCharCode(0x7f)}1g6xzxy`,
  `${String.fromCharCode(0x80)}1vctc34`,
  'an84characterslonghumanreadablepartthatcontainsthetheexcludedcharactersbioandnumber11d6pts4',
  'qyrz8wqd2c9m',
  '1qyrz8wqd2c9m',
  'y1b0jsk6g',
  'lt1igcx5c0',
  'in1muywd',
  'mm1crxm3i',
  'au1s5cgom',
  'M1VUXWEZ',
  '16plkw9',
  '1p2gdwpf',
];

/** EIP-55's examples: all upper-case, all lower-case, and checksummed mixed case. */
const EIP55_VALID = [
  '0x52908400098527886E0F7030069857D2E4169EE7',
  '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  '0xde709f2102306220921060314715629080e2fb77',
  '0x27b1fdb04752bbc536007a920d24acb045561c26',
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

/** Each letter's case flipped in turn breaks the checksum of a mixed-case address (EIP-55's point). */
function caseFlips(address: string): string[] {
  return [...address.slice(2)].flatMap((char, i) => {
    const flipped = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase();
    return flipped === char ? [] : [`0x${address.slice(2, i + 2)}${flipped}${address.slice(i + 3)}`];
  });
}

/**
 * TON's examples, raw and user-friendly: TEP-2's root DNS (the masterchain, bounceable and
 * non-bounceable), and the TON cookbook's basechain address.
 */
const TON_ACCOUNTS = [
  {
    raw: '-1:e56754f83426f69b09267bd876ac97c44821345b7e266bd956a7bfbfb98df35c',
    spellings: ['Ef_lZ1T4NCb2mwkme9h2rJfESCE0W34ma9lWp7-_uY3zXDvq', 'Uf_lZ1T4NCb2mwkme9h2rJfESCE0W34ma9lWp7-_uY3zXGYv'],
    normal: 'Ef_lZ1T4NCb2mwkme9h2rJfESCE0W34ma9lWp7-_uY3zXDvq',
  },
  {
    raw: '0:ca6e321c7cce9ecedf0a8ca2492ec8592494aa5fb5ce0387dff96ef6af982a3e',
    spellings: ['EQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff-W72r5gqPrHF', 'EQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff+W72r5gqPrHF'],
    normal: 'EQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff-W72r5gqPrHF',
  },
];

describe('address test vectors', () => {
  it('reads BIP 350 valid segwit addresses as their scriptPubKey, lower-case', () => {
    for (const [address, scriptPubKey] of SEGWIT_VALID) {
      const segwit = decodeSegwit(address.toLowerCase());
      if (!('value' in segwit)) throw new Error(`${address}: ${segwit.problem}`);
      const { version, program } = segwit.value;
      const script = [version === 0 ? 0 : 0x50 + version, program.length, ...program];
      expect(Buffer.from(script).toString('hex'), address).toBe(scriptPubKey);
      expect(readAddress(address), address).toEqual({ address: address.toLowerCase(), format: 'bitcoin' });
    }
  });

  it('refuses BIP 173 and BIP 350 invalid segwit addresses', () => {
    for (const [address, reason] of SEGWIT_INVALID)
      expect(readAddress(address), `${address}: ${reason}`).toBeUndefined();
  });

  it('says which segwit rule an address breaks', () => {
    expect(() => parseAddress('bc1q9zpgru')).toThrow(
      'invalid address "bc1q9zpgru": witness version 0 takes a program of 20 or 32 bytes, this one has 0',
    );
    expect(() => parseAddress('bc1pw5dgrnzv')).toThrow(
      /witness version 1 takes a program of 2 to 40 bytes, this one has 1/,
    );
    expect(() => parseAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh')).toThrow(
      /witness version 0 is written with a bech32 checksum \(BIP 350\), not bech32m/,
    );
    expect(() => parseAddress('BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R')).toThrow(
      /witness version 17 does not exist/,
    );
    expect(() => parseAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).toThrow(/its bech32 checksum fails/);
    expect(() => parseAddress('tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq')).toThrow(
      /a bech32 address is in one case, not mixed/,
    );
  });

  it('checksums bech32 and bech32m strings as BIP 173 and BIP 350 publish them', () => {
    for (const text of BECH32_VALID) {
      expect(bech32.decodeUnsafe(text), text).toBeDefined();
      expect(bech32m.decodeUnsafe(text), text).toBeUndefined();
    }
    for (const text of BECH32M_VALID) {
      expect(bech32m.decodeUnsafe(text), text).toBeDefined();
      expect(bech32.decodeUnsafe(text), text).toBeUndefined();
    }
    for (const text of BECH32_INVALID) expect(bech32.decodeUnsafe(text), JSON.stringify(text)).toBeUndefined();
    for (const text of BECH32M_INVALID) expect(bech32m.decodeUnsafe(text), JSON.stringify(text)).toBeUndefined();
  });

  it("takes EIP-55's examples, and refuses a mixed-case address whose checksum fails, naming EIP-55", () => {
    for (const address of EIP55_VALID) {
      expect(readAddress(address), address).toEqual({ address: address.toLowerCase(), format: 'evm' });
    }
    const mixed = EIP55_VALID.filter((address) => /[a-f]/.test(address.slice(2)) && /[A-F]/.test(address));
    expect(mixed).toHaveLength(4);
    for (const wrong of mixed.flatMap(caseFlips)) {
      expect(readAddress(wrong), wrong).toBeUndefined();
      expect(() => parseAddress(wrong), wrong).toThrow(
        `invalid address "${wrong}": an EVM address in mixed case carries an EIP-55 checksum, and the case of its letters does not match it (a mistyped character?)`,
      );
    }
  });

  it("reads TON's examples in every spelling as one bounceable base64url address", () => {
    for (const { raw, spellings, normal } of TON_ACCOUNTS) {
      for (const spelling of [raw, raw.toUpperCase().replace('0X', '0x'), ...spellings]) {
        expect(readAddress(spelling), spelling).toEqual({ address: normal, format: 'ton' });
      }
    }
    // A testnet address stays one (kQ…), apart from its mainnet twin (EQ…).
    expect(normalizeAddress('kQAvlWFDxGF2lXm67y4yzC17wYKD9A0guwPkMs1gOsM__GgZ')).toBe(
      'kQAvlWFDxGF2lXm67y4yzC17wYKD9A0guwPkMs1gOsM__GgZ',
    );
    expect(normalizeAddress('EQAvlWFDxGF2lXm67y4yzC17wYKD9A0guwPkMs1gOsM__NOT')).toBe(
      'EQAvlWFDxGF2lXm67y4yzC17wYKD9A0guwPkMs1gOsM__NOT',
    );
    // One character off, the CRC fails; a workchain other than 0 and -1 is refused (TEP-2).
    for (const bad of [
      'EQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff-W72r5gqPrHG',
      'EQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff-W72r5gqPrhF',
    ]) {
      expect(readAddress(bad), bad).toBeUndefined();
    }
    expect(readAddress(`1:${'ab'.repeat(32)}`)).toBeUndefined();
    const workchain1 = new TonAddress(1, Buffer.alloc(32, 0xab)).toString();
    expect(workchain1).toMatch(/^EQ/);
    expect(readAddress(workchain1)).toBeUndefined();
  });
});
