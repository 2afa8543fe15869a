import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import {
  checkAddressChains,
  nftChainsFor,
  normalizeAddress,
  parseAddress,
  positionsChainFormat,
  readAddress,
} from '../../src/chain/address.ts';
import type { AddressFormat } from '../../src/chain/address-formats.ts';

const SUI = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const EVM = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';
const SOLANA = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const BITCOIN_LEGACY = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';
const BITCOIN_BECH32 = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const TON = 'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q2';

describe('addresses', () => {
  it('knows each chain family by its format, checksums included', () => {
    const formats: [string, AddressFormat][] = [
      [SUI, 'sui'],
      [EVM, 'evm'],
      [SOLANA, 'solana'],
      ['So11111111111111111111111111111111111111112', 'solana'],
      ['11111111111111111111111111111111', 'solana'],
      [BITCOIN_LEGACY, 'bitcoin'],
      ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'bitcoin'],
      [BITCOIN_BECH32, 'bitcoin'],
      [TON, 'ton'],
      [`0:${'a'.repeat(64)}`, 'ton'],
    ];
    for (const [address, format] of formats) expect(readAddress(address)?.format, address).toBe(format);
    for (const bad of [
      '0x123', // neither 40 nor 64 hex digits: never padded
      `0x${'a'.repeat(63)}`,
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', // legacy checksum fails
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr', // bech32 checksum fails
      'bc1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ', // mixed case
      'bc1zw508d6qejxtdg4y5r3zarqfsj6c3', // v2 with a bech32 (not bech32m) checksum
      'bc1q9zpgru', // an empty witness program
      '0xD8dA6BF26964aF9D7eEd9e03E53415D37aA96045', // mixed case, EIP-55 checksum fails (first letter)
      'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q3', // CRC fails
      '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGY', // base58 of neither 32 bytes nor a Bitcoin address
      'hello',
    ]) {
      expect(readAddress(bad), bad).toBeUndefined();
    }
  });

  it('gives each wallet one normal form, so that its spellings are one address', () => {
    expect(normalizeAddress(` ${SUI.toUpperCase().replace('0X', '0x')} `)).toBe(SUI);
    expect(normalizeAddress('0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045')).toBe(EVM);
    expect(normalizeAddress(SOLANA)).toBe(SOLANA);
    expect(normalizeAddress('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe(
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
    // Bounceable, non-bounceable, standard base64 and raw spellings of one TON account.
    for (const spelling of [
      TON,
      'UQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p9dz',
      'EQDtFpEwcFAEcRe5mLVh2N6C0x+/hJEM7W61/JLnSF74p4q2',
      '0:ED1691307050047117B998B561D8DE82D31FBF84910CED6EB5FC92E7485EF8A7',
    ]) {
      expect(normalizeAddress(spelling), spelling).toBe(TON);
    }
    // The normal form is its own normal form.
    for (const address of [SUI, EVM, SOLANA, BITCOIN_LEGACY, BITCOIN_BECH32, TON]) {
      expect(normalizeAddress(normalizeAddress(address))).toBe(normalizeAddress(address));
    }
  });

  it('refuses an address that is none of the formats, naming them', () => {
    expect(() => parseAddress('0x2')).toThrow(
      new InvalidInputError(
        'invalid address "0x2": expected a SUI address (0x and 64 hex digits), an EVM address (0x and 40 hex digits), a Solana address (base58 of 32 bytes), a Bitcoin address (bech32 bc1… or base58 1…/3…), a TON address (EQ…/UQ… or workchain:hex)',
      ),
    );
  });

  it('NFT chains take their own format, ALL takes any; a known positions chain likewise', () => {
    expect(nftChainsFor('sui')).toEqual(['SUI', 'ALL']);
    expect(nftChainsFor('solana')).toEqual(['SOL', 'ALL']);
    expect(nftChainsFor('evm')).toEqual([
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
    ]);
    expect(positionsChainFormat('Ethereum')).toBe('evm');
    expect(positionsChainFormat('sui')).toBe('sui');
    expect(positionsChainFormat('some-new-chain')).toBeUndefined();
  });

  it('refuses an address on a chain of another format, naming the format and the chain', () => {
    const solana = parseAddress(SOLANA);
    expect(() => checkAddressChains(solana, { nftChain: 'ETH' })).toThrow(
      new InvalidInputError(
        `address ${SOLANA} is a Solana address (base58 of 32 bytes), and NFT chain ETH takes an EVM address (0x and 40 hex digits): use --nft-chain SOL or ALL`,
      ),
    );
    // An EVM address is never taken for a SUI one.
    expect(() => checkAddressChains(parseAddress(EVM), { nftChain: 'SUI' })).toThrow(
      /is an EVM address \(0x and 40 hex digits\), and NFT chain SUI takes a SUI address/,
    );
    expect(() => checkAddressChains(parseAddress(SUI), { positionsChain: 'ethereum' })).toThrow(
      /is a SUI address \(0x and 64 hex digits\), and positions chain ethereum takes an EVM address/,
    );
    for (const fine of [
      { nftChain: 'SOL' as const },
      { nftChain: 'ALL' as const },
      { positionsChain: 'solana' },
      { positionsChain: 'some-new-chain' },
      { positionsChain: null },
      {},
    ]) {
      expect(() => checkAddressChains(solana, fine)).not.toThrow();
    }
  });

  it('keeps a hostile value out of the message', () => {
    const hostile = `0x${'f'.repeat(100_000)}`;
    let message = '';
    try {
      normalizeAddress(hostile);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/\(100002 characters\)/);
    expect(message.length).toBeLessThan(400);
  });
});
