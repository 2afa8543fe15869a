import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import {
  addressKind,
  nftChainAccepts,
  normalizeAddress,
  normalizePositionsAddress,
  parseWatchedNftChain,
  NFT_CHAINS,
  type AddressKind,
} from '../../src/chain/address.ts';

const SUI = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const EVM = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';
const SOLANA = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const BITCOIN_LEGACY = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';
const BITCOIN_BECH32 = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const TON = 'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q2';

describe('addresses', () => {
  it('knows each chain family by its format', () => {
    const kinds: [string, AddressKind][] = [
      [SUI, 'sui'],
      [EVM, 'evm'],
      [SOLANA, 'base58'],
      [BITCOIN_LEGACY, 'base58'],
      [BITCOIN_BECH32, 'bitcoin-bech32'],
      [TON, 'ton'],
      [`0:${'a'.repeat(64)}`, 'ton-raw'],
    ];
    for (const [address, kind] of kinds) expect(addressKind(address), address).toBe(kind);
    expect(addressKind('0x123')).toBeUndefined();
  });

  it('positions are SUI-only: a SUI address, lower-cased; EVM and base58 addresses are refused, saying so', () => {
    expect(normalizePositionsAddress(` ${SUI.toUpperCase().replace('0X', '0x')} `)).toBe(SUI);
    expect(() => normalizePositionsAddress(EVM)).toThrow(
      new InvalidInputError(
        `invalid address "${EVM}": positions are SUI-only, expected a SUI address (0x and 64 hex digits): this is an EVM address (0x and 40 hex digits)`,
      ),
    );
    expect(() => normalizePositionsAddress(SOLANA)).toThrow(
      /positions are SUI-only, expected a SUI address \(0x and 64 hex digits\): this is a base58 address/,
    );
    expect(() => normalizePositionsAddress(TON)).toThrow(/positions are SUI-only.*this is a TON address/);
    // A short 0x form is not padded: 0x and 40 hex digits would be an EVM address.
    expect(() => normalizePositionsAddress('0x2')).toThrow(
      new InvalidInputError(
        'invalid address "0x2": positions are SUI-only, expected a SUI address (0x and 64 hex digits)',
      ),
    );
  });

  it('NFT holdings take each chain’s own format, ALL takes any', () => {
    expect(nftChainAccepts('SUI', 'sui')).toBe(true);
    expect(nftChainAccepts('ETH', 'evm')).toBe(true);
    expect(nftChainAccepts('BASE', 'evm')).toBe(true);
    expect(nftChainAccepts('SOL', 'base58')).toBe(true);
    expect(nftChainAccepts('BTC', 'bitcoin-bech32')).toBe(true);
    expect(nftChainAccepts('TON', 'ton')).toBe(true);
    expect(nftChainAccepts('ETH', 'sui')).toBe(false);
    expect(nftChainAccepts('SUI', 'evm')).toBe(false);
    expect(nftChainAccepts('SOL', 'evm')).toBe(false);
    expect(NFT_CHAINS.filter((chain) => nftChainAccepts(chain, 'sui'))).toEqual(['SUI', 'ALL']);
    expect(NFT_CHAINS.filter((chain) => nftChainAccepts(chain, 'evm'))).toEqual([
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
  });

  it('a watched address is queried for both datasets: its NFT chain must take SUI addresses', () => {
    expect(parseWatchedNftChain('sui')).toBe('SUI');
    expect(parseWatchedNftChain('ALL')).toBe('ALL');
    expect(() => parseWatchedNftChain('eth')).toThrow(
      new InvalidInputError(
        'NFT chain ETH takes an EVM address (0x and 40 hex digits), and a watched address is a SUI address (positions are SUI-only): use --nft-chain SUI or ALL',
      ),
    );
    expect(() => parseWatchedNftChain('BTC')).toThrow(/takes a bech32 Bitcoin address or a base58 address/);
    expect(() => parseWatchedNftChain('DOGE')).toThrow(/unknown NFT chain "DOGE"/);
  });

  it('keeps a hostile value out of the message', () => {
    const hostile = `0x${'f'.repeat(100_000)}`;
    for (const parse of [normalizeAddress, normalizePositionsAddress]) {
      let message = '';
      try {
        parse(hostile);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/\(100002 characters\)/);
      expect(message.length).toBeLessThan(300);
    }
  });
});
