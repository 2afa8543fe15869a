import { describe, expect, it } from 'vitest';
import { readChainName } from '../../src/chain/chain-name.ts';
import { chainTokenText, parseChainToken, tokenId } from '../../src/chain/token-id.ts';

const SUI = `0x${'0'.repeat(63)}2::sui::SUI`;

describe('chain names', () => {
  it('spell a chain one way, whoever names it (positions answers, the NFT chain list)', () => {
    expect(['SUI', 'sui', ' Sui '].map(readChainName)).toEqual(['sui', 'sui', 'sui']);
    expect(['ETH', 'ethereum', 'ARB', 'arbitrum', 'OP', 'SOL', 'BTC', 'BASE', 'zkSync'].map(readChainName)).toEqual([
      'ethereum',
      'ethereum',
      'arbitrum',
      'arbitrum',
      'optimism',
      'solana',
      'bitcoin',
      'base',
      'zksync',
    ]);
    expect(['', 'Sui Mainnet', '1chain', 'x'.repeat(33)].map(readChainName)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('tokens as a person names them', () => {
  it('a bare coin type is a SUI token, in its normal form', () => {
    expect(parseChainToken('0x2::sui::SUI')).toEqual({ chain: 'sui', token: SUI });
    expect(parseChainToken('sui:0x2::sui::SUI')).toEqual({ chain: 'sui', token: SUI });
  });

  it('any other token with its chain: EVM addresses lower-case, base58 as given', () => {
    expect(parseChainToken('ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toEqual({
      chain: 'ethereum',
      token: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    });
    expect(parseChainToken('ARB:0xda10009cbd5d07dd0cecc66161fc93d7c9000da1')).toEqual({
      chain: 'arbitrum',
      token: '0xda10009cbd5d07dd0cecc66161fc93d7c9000da1',
    });
    expect(parseChainToken('solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toEqual({
      chain: 'solana',
      token: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    });
    expect(parseChainToken('solana:native')).toEqual({ chain: 'solana', token: 'native' });
  });

  it('refuses a bare token that is no coin type, saying how to name another chain', () => {
    expect(() => parseChainToken('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')).toThrow(
      /invalid coin type .*; a token of another chain is named with its chain: <chain>:<token>/,
    );
    expect(() => parseChainToken('sui:0xa0b8')).toThrow(/invalid coin type/);
    expect(() => parseChainToken('ethereum:')).toThrow(/names no token after its chain/);
  });

  it('reads back what chainTokenText writes', () => {
    for (const text of ['0x2::sui::SUI', 'ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'solana:native']) {
      const token = parseChainToken(text);
      expect(parseChainToken(chainTokenText(token))).toEqual(token);
    }
  });

  it('tokenId: coin types and addresses in their normal form, anything else as given', () => {
    expect(tokenId(' 0x2::sui::SUI ')).toBe(SUI);
    expect(tokenId('0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1')).toBe('0xda10009cbd5d07dd0cecc66161fc93d7c9000da1');
    expect(tokenId('native')).toBe('native');
    expect(tokenId('  ')).toBeNull();
  });
});
