/**
 * Liquid staking tokens of the simulated world. Each is a claim on its chain's native token that grows
 * with the staking yield: its price is the native token's price times its exchange rate, so a liquid
 * staking position gains its yield and moves with the native token, as the real ones do.
 */
const YEAR_MS = 365 * 86_400_000;
/** When every exchange rate was at its base. */
const RATES_START_MS = Date.UTC(2024, 0, 1);

export interface LiquidStakingToken {
  /** Address (coin type on sui) of the native token it stakes. */
  native: string;
  /** Exchange rate (native per liquid staking token) at RATES_START_MS. */
  base: number;
  /** Yearly growth of the exchange rate. */
  apy: number;
}

const SUI = '0x2::sui::SUI';
const LIQUID_STAKING: Record<string, LiquidStakingToken> = {
  '0xf325ce1300e8dac124071d3152c5c5ee6174914f8bc2161e88329cf579246efc::afsui::AFSUI': {
    native: SUI,
    base: 1.04,
    apy: 0.035,
  },
  '0xbde4ba4c2e274a60ce15c1cfff9e5c42e41654ac8b6d906a57efa4bd3c29f47d::hasui::HASUI': {
    native: SUI,
    base: 1.03,
    apy: 0.032,
  },
  '0x549e8b69270defbfafd4f94e17ec44cdbdd99820b33bda2278dea3b9a32d3f55::cert::CERT': {
    native: SUI,
    base: 1.02,
    apy: 0.038,
  },
  // stETH rebases (one stETH stays one ether); wstETH wraps it at a growing rate.
  '0xae7ab96520de3a18e5e111b5eaab095312d7fe84': {
    native: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
    base: 1,
    apy: 0,
  },
  '0x5979d7b546e38e414f7e9822514be443a4800529': {
    native: '0x82af49447d8a07e3bd95bd0d56f35241523fbab1',
    base: 1.15,
    apy: 0.03,
  },
};

/** The liquid staking token of an address (a coin type in normal form on sui), if it is one. */
export function liquidStakingToken(address: string): LiquidStakingToken | undefined {
  return LIQUID_STAKING[address];
}

/** Native tokens one liquid staking token is worth at a time. */
export function exchangeRate(token: LiquidStakingToken, timeMs: number): number {
  return token.base * (1 + token.apy * Math.max(0, (timeMs - RATES_START_MS) / YEAR_MS));
}
