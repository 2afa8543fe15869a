import { exchangeRate, liquidStakingToken } from './liquid-staking.ts';
import { modelPriceAt, modelPriceRange, priceModel, type PriceModel } from './price-model.ts';
import type { PositionChain } from './protocols.ts';
import { simulatedToken, simulatedTokenPrice } from './token-prices.ts';

/**
 * The tokens positions are made of, per chain. SUI tokens are priced by the same series as the price
 * operation (so a position's value agrees with the token price at the epoch start); EVM tokens by a
 * series of their own.
 */
type Role = 'major' | 'stable' | 'reward' | 'liquid_staking';
/** `address`: coin type on sui, contract address on EVM chains; `base`: reference price of an EVM token. */
const token = (chain: PositionChain, address: string, symbol: string, decimals: number, role: Role, base?: number) => ({
  chain,
  address,
  symbol,
  decimals,
  role,
  base,
});
export type PositionToken = ReturnType<typeof token>;
const sui = (...args: [address: string, symbol: string, decimals: number, role: Role]) => token('sui', ...args);

const TOKENS: readonly PositionToken[] = [
  sui('0x2::sui::SUI', 'SUI', 9, 'major'),
  sui('0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC', 'USDC', 6, 'stable'),
  sui('0xc060006111016b8a020ad5b33834984a437aaa7d3c74c18e09a95d48aceab08c::usdt::USDT', 'USDT', 6, 'stable'),
  sui('0x027792d9fed7f9844eb4839566001bb6f6cb4804f66aa2da6fe1ee242d896881::coin::WETH', 'WETH', 8, 'major'),
  sui('0x06864a6f921804860930db6ddbe2e16acdf8504495ea7481637a1c8b9a8fe54b::cetus::CETUS', 'CETUS', 9, 'reward'),
  sui('0xa99b8952d4f7d947ea77fe0ecdcc9e5fc0bcab2841d6e2a5aa00c3044e5544b5::navx::NAVX', 'NAVX', 9, 'reward'),
  sui('0xdeeb7a4662eec9f2f3def03fb937a663dddaa2e215b8078a284d026b7946c270::deep::DEEP', 'DEEP', 6, 'reward'),
  sui('0x7016aae72cfc67f2fadf55769c0a7dd54291a583b63051a5ed71081cce836ac6::sca::SCA', 'SCA', 9, 'reward'),
  sui('0xf325ce1300e8dac124071d3152c5c5ee6174914f8bc2161e88329cf579246efc::afsui::AFSUI', 'AFSUI', 9, 'liquid_staking'),
  sui('0xbde4ba4c2e274a60ce15c1cfff9e5c42e41654ac8b6d906a57efa4bd3c29f47d::hasui::HASUI', 'HASUI', 9, 'liquid_staking'),
  sui('0x549e8b69270defbfafd4f94e17ec44cdbdd99820b33bda2278dea3b9a32d3f55::cert::CERT', 'CERT', 9, 'liquid_staking'),
  token('ethereum', '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'ETH', 18, 'major', 3200),
  token('ethereum', '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599', 'WBTC', 8, 'major', 65000),
  token('ethereum', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', 'USDC', 6, 'stable', 1),
  token('ethereum', '0xdac17f958d2ee523a2206206994597c13d831ec7', 'USDT', 6, 'stable', 1),
  token('ethereum', '0x808507121b80c02388fad14726482e061b8da827', 'PENDLE', 18, 'reward', 4.5),
  token('ethereum', '0xae7ab96520de3a18e5e111b5eaab095312d7fe84', 'stETH', 18, 'liquid_staking', 3190),
  token('arbitrum', '0x82af49447d8a07e3bd95bd0d56f35241523fbab1', 'WETH', 18, 'major', 3200),
  token('arbitrum', '0xaf88d065e77c8cc2239327c5edb3a432268e5831', 'USDC', 6, 'stable', 1),
  token('arbitrum', '0x912ce59144191c1204e64559fe8253a0e49e6548', 'ARB', 18, 'reward', 0.8),
  token('arbitrum', '0xfc5a1a6eb076a2c7ad06ed22c90d7e710e35ad0a', 'GMX', 18, 'reward', 25),
  token('arbitrum', '0x5979d7b546e38e414f7e9822514be443a4800529', 'wstETH', 18, 'liquid_staking', 3700),
];

export function positionTokens(chain: PositionChain, role?: Role): PositionToken[] {
  return TOKENS.filter((token) => token.chain === chain && (role === undefined || token.role === role));
}

/** Price of a position token at a time (null when the price operation has none for it). */
export function positionTokenPrice(token: PositionToken, timeMs: number, seed: string): number | null {
  if (token.chain === 'sui') return simulatedTokenPrice(token.address, timeMs, seed);
  const staked = liquidStakingToken(token.address);
  if (staked) {
    const native = TOKENS.find((candidate) => candidate.chain === token.chain && candidate.address === staked.native)!;
    return Number((modelPriceAt(evmModel(native, seed), timeMs) * exchangeRate(staked, timeMs)).toPrecision(12));
  }
  return Number(modelPriceAt(evmModel(token, seed), timeMs).toPrecision(12));
}

function evmModel(token: PositionToken, seed: string): PriceModel {
  return priceModel(`${token.chain}:${token.address}`, seed, {
    base: token.base ?? 1,
    stable: token.role === 'stable',
  });
}

/** The lowest and highest price a token (not a liquid staking one) ever has. */
export function positionTokenPriceRange(token: PositionToken, seed: string): { low: number; high: number } {
  return modelPriceRange(token.chain === 'sui' ? simulatedToken(token.address, seed).model : evmModel(token, seed));
}
