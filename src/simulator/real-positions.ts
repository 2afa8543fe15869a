import { positionTokenPrice, positionTokens } from './position-tokens.ts';
import type { Json, JsonObject } from './json.ts';
import { protocol, type PositionChain, type PositionType, type SimulatedProtocol } from './protocols.ts';

/**
 * Positions as real answers spell them (upstream-reality.md), for the real-shapes world. Each real
 * type is built by one of the default world's variants, then respelled here: the real type name,
 * chain `SUI`, token objects with undocumented fields, numbers as numeric strings, long decimal
 * strings or `{ value }`, and documented fields left out. The respelling keeps every figure's value.
 */
const CETUS = protocol('cetus', 'Cetus', 'app.cetus.zone', ['sui'], []);
const KRIYA = protocol('kriya', 'Kriya', 'app.kriya.finance', ['sui'], []);
const AFTERMATH = protocol('aftermath', 'AftermathFinance', 'aftermath.finance', ['sui'], []);
const SCALLOP = protocol('scallop', 'Scallop', 'app.scallop.io', ['sui'], []);
const NAVI = protocol('navi', 'Navi', 'app.naviprotocol.io', ['sui'], []);
const NATIVE_STAKE = protocol('native_stake', 'native_stake', 'sui.io', ['sui'], []);
const REAL_PROTOCOLS = [CETUS, KRIYA, AFTERMATH, SCALLOP, NAVI, NATIVE_STAKE];

type NumberSpelling = 'number' | 'string' | 'long-decimal';

interface RealTypeShape {
  /** The default world's variant that builds its figures. */
  builder: PositionType;
  protocols: SimulatedProtocol[];
  numbers: NumberSpelling;
  /** `fee` as `{ value: fee }`. */
  wrapFee?: boolean;
  /** Fields this type leaves out: documented ones real answers miss, and tick fields of uniform pools. */
  omit?: string[];
}

const TICK_FIELDS = ['tickLower', 'tickUpper', 'inRange', 'liquidity'];

export type RealPositionType = 'AMM' | 'CLMM' | 'CFMM' | 'Lending' | 'Borrow' | 'Staking' | 'Vest' | 'Farm' | 'Reward';

export const REAL_TYPE_SHAPES: Record<RealPositionType, RealTypeShape> = {
  AMM: { builder: 'liquidity_pool', protocols: [KRIYA], numbers: 'string', omit: TICK_FIELDS },
  CLMM: { builder: 'liquidity_pool', protocols: [CETUS], numbers: 'long-decimal', wrapFee: true },
  CFMM: { builder: 'liquidity_pool', protocols: [AFTERMATH], numbers: 'number', wrapFee: true, omit: TICK_FIELDS },
  Lending: { builder: 'lending_supply', protocols: [SCALLOP, NAVI], numbers: 'number', omit: ['farming'] },
  Borrow: { builder: 'lending_borrow', protocols: [SCALLOP, NAVI], numbers: 'string' },
  Staking: { builder: 'staking', protocols: [NATIVE_STAKE], numbers: 'number', omit: ['yieldCollected'] },
  Vest: { builder: 'vesting', protocols: [CETUS], numbers: 'string', omit: ['farming'] },
  Farm: { builder: 'farming', protocols: [CETUS, AFTERMATH], numbers: 'number', wrapFee: true },
  Reward: { builder: 'vesting', protocols: [NAVI, SCALLOP], numbers: 'number', omit: ['farming', 'yieldCollected'] },
};

export const REAL_POSITION_TYPES = Object.keys(REAL_TYPE_SHAPES) as RealPositionType[];

export function findRealProtocol(id: string): SimulatedProtocol | undefined {
  return REAL_PROTOCOLS.find((candidate) => candidate.protocol === id);
}

const TOKEN_NAMES: Record<string, string> = { SUI: 'Sui', USDC: 'USD Coin', USDT: 'Tether USD', WETH: 'Wrapped Ether' };
const AMOUNT_LISTS = ['input', 'yieldCollected'] as const;

/** The chain a real-shapes position is on: its label in answers (`SUI`, `ETH`) and its tokens' chain. */
export type RealChain = { label: string; tokens: PositionChain };

/**
 * A default-world position respelled as the real type. `nested` replaces the `input` list of a Borrow
 * (its collateral, a whole Lending position).
 */
export function realShapePosition(
  position: JsonObject,
  type: RealPositionType,
  chain: RealChain,
  valuedAt: { ms: number; seed: string },
  nested?: JsonObject,
): JsonObject {
  const shape = REAL_TYPE_SHAPES[type];
  const context: TokenContext = {
    timestamp: Math.floor(valuedAt.ms / 1000),
    poolId: typeof position.poolId === 'string' ? position.poolId : undefined,
    chain,
    priceOf: (address) => {
      const token = positionTokens(chain.tokens).find((candidate) => candidate.address === address);
      return token ? positionTokenPrice(token, valuedAt.ms, valuedAt.seed) : null;
    },
  };
  const entries = (list: Json | undefined) => amountList(list, shape.numbers, context);
  const real: JsonObject = { ...position, type, chain: chain.label };
  for (const name of AMOUNT_LISTS) if (name in position) real[name] = entries(position[name]);
  const current = position.current as JsonObject;
  real.current = { ...current, tokens: entries(current.tokens) };
  if ('yield' in current) (real.current as JsonObject).yield = entries(current.yield);
  if (Array.isArray(position.farming)) {
    real.farming = position.farming.map((farm) => {
      const entry = farm as JsonObject;
      return Array.isArray(entry.rewards) ? { ...entry, rewards: entries(entry.rewards) } : entry;
    });
  }
  // Real answers carry a loan's health factor in current.healthy.
  if (typeof position.healthFactor === 'number' && type === 'Borrow')
    (real.current as JsonObject).healthy = String(position.healthFactor);
  if (shape.wrapFee && position.fee !== null && position.fee !== undefined) real.fee = { value: Number(position.fee) };
  if (type === 'CLMM') real.price = longDecimal(poolPrice(real.current as JsonObject));
  if (nested !== undefined) real.input = [nested];
  for (const name of shape.omit ?? []) delete real[name];
  return real;
}

type TokenContext = {
  timestamp: number;
  poolId?: string;
  chain: RealChain;
  /** The token's price at the valuation time: every answer carries the same for the same token and time. */
  priceOf(address: string): number | null;
};

/** Every amount list of the default world's variants is an array of amount entries. */
function amountList(list: Json | undefined, numbers: NumberSpelling, context: TokenContext): Json {
  return (list as JsonObject[]).map((entry) => {
    const amount = toNumber(entry.amount);
    const value = toNumber(entry.value);
    const address = typeof entry.token === 'string' ? entry.token : String((entry.token as JsonObject)?.address);
    // The model's price, not value / amount: that differs in its last digits from wallet to wallet.
    const price = value === null ? null : context.priceOf(address);
    return {
      amount: spell(amount, numbers),
      value: spell(value, numbers),
      token: realToken(entry.token ?? null, price, context),
    };
  });
}

/** A token object with the fields real answers add (`name`, `logo`, `chain`, `poolId`, ...). */
function realToken(token: Json, price: number | null, context: TokenContext): JsonObject {
  const address = typeof token === 'string' ? token : String((token as JsonObject).address);
  const known = positionTokens(context.chain.tokens).find((candidate) => candidate.address === address);
  const symbol = known?.symbol ?? address.split('::')[2] ?? address;
  const real: JsonObject = {
    address,
    symbol,
    name: TOKEN_NAMES[symbol] ?? symbol,
    logo: `https://icons.simulated.chaintap.dev/tokens/${symbol.toLowerCase()}.png`,
    chain: context.chain.label,
    decimals: known?.decimals ?? 9,
    timestamp: context.timestamp,
    source: 'simulated',
  };
  if (context.poolId !== undefined) real.poolId = context.poolId;
  if (price !== null) real.price = Number(price.toPrecision(12));
  return real;
}

/** An amount or a value: a number, a numeric string or (unpriced) null. */
function toNumber(value: Json | undefined): number | null {
  return typeof value === 'number' || typeof value === 'string' ? Number(value) : null;
}

function spell(value: number | null, numbers: NumberSpelling): Json {
  if (value === null) return null;
  if (numbers === 'string') return String(value);
  if (numbers === 'long-decimal') return longDecimal(value);
  return value;
}

/**
 * The exact decimal expansion of a double, to at least 30 significant digits (as concentrated-liquidity
 * prices arrive): toFixed writes the binary value's exact digits, so the string equals the number.
 */
export function longDecimal(value: number): string {
  if (value === 0) return '0';
  const decimals = Math.min(100, Math.max(0, 30 - Math.floor(Math.log10(Math.abs(value)))));
  return value.toFixed(decimals);
}

/** Price of the first pool token in the second, from the current amounts and values. */
function poolPrice(current: JsonObject): number {
  const [a, b] = current.tokens as [JsonObject, JsonObject];
  const unit = (entry: JsonObject) => (toNumber(entry.value) ?? 1) / (toNumber(entry.amount) ?? 1);
  return unit(a) / unit(b);
}
