import type { NftChain } from '../chain/address.ts';
import { significant } from './hash.ts';
import { positionTokenPrice, positionTokens } from './position-tokens.ts';
import { modelPriceAt, priceModel } from './price-model.ts';
import { simulatedTokenPrice } from './token-prices.ts';

/**
 * USD price of a chain's native token, as real NFT answers carry it in `marketPrice`. SUI and ether
 * follow the series the positions use, so one world agrees with itself; the others have their own.
 */
const OTHER_NATIVE_USD: Partial<Record<NftChain, number>> = {
  SOL: 150,
  BTC: 65_000,
  TON: 5,
  FANTOM: 0.5,
  RON: 2,
  BNB: 550,
  AVAX: 30,
  MATIC: 0.7,
};
const ETHER_CHAINS: readonly NftChain[] = ['ETH', 'ARB', 'BASE', 'OP', 'SCROLL', 'ZKSYNC'];

export function nativeTokenUsdPrice(chain: Exclude<NftChain, 'ALL'>, timeMs: number, seed: string): number {
  if (chain === 'SUI') return simulatedTokenPrice('0x2::sui::SUI', timeMs, seed) ?? 0;
  if (ETHER_CHAINS.includes(chain))
    return positionTokenPrice(positionTokens('ethereum', 'major')[0]!, timeMs, seed) ?? 0;
  const model = priceModel(`native:${chain}`, seed, { base: OTHER_NATIVE_USD[chain] ?? 1 });
  return significant(modelPriceAt(model, timeMs), 10);
}
