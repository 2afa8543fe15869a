import { InvalidInputError } from '../errors.ts';
import { parseAddress, parseChainFilter } from '../chain/address.ts';
import { walletEvents } from './change-events.ts';
import { Draws, hashOf, significant } from './hash.ts';
import type { Json, JsonObject } from './json.ts';
import { exchangeRate, liquidStakingToken } from './liquid-staking.ts';
import { positionTokenPrice, positionTokenPriceRange, positionTokens, type PositionToken } from './position-tokens.ts';
import {
  findRealProtocol,
  REAL_POSITION_TYPES,
  REAL_TYPE_SHAPES,
  realShapePosition,
  type RealPositionType,
} from './real-positions.ts';
import {
  findProtocol,
  POSITION_TYPES,
  protocolsFor,
  type PositionChain,
  type PositionType,
  type SimulatedProtocol,
} from './protocols.ts';
import { positionSize, slotStates, type SlotState } from './slot-history.ts';
import { DEFAULT_SEED, resolveWorld, slotOccupant, worldAt, type SimulatorWorld } from './world.ts';

/**
 * DeFi positions of the simulated upstream. An address has `positionsPerAddress` slots; slot i
 * always holds the same variant (rotated per address, so an address with as many slots as variants
 * shows every one). In the default world a slot's occupant lives 2 to 8 epochs before it closes and
 * a new position opens in its place; in the living world (world.habits) occupants open, close and
 * resize at the wallet's change events (slot-history.ts) and their amounts stay fixed in between.
 * Values are amounts times the token prices at the epoch start, or at the start of each valuation
 * step (world.valuationMs).
 */
const YEAR_MS = 365 * 86_400_000;
const LIFETIME_EPOCHS = { min: 2, max: 8 };

export interface PositionFilter {
  /** Chain name, compared case-insensitively ('sui', 'ethereum', 'arbitrum'). */
  chain?: string;
  /** Protocol ids (meta.protocol.protocol); unknown ids are rejected. */
  protocols?: string[];
}

/**
 * A slot's occupant: whose, which, when it opened, until when its yield has accrued (the valuation
 * time, or in the living world its last change), when it is valued and its size (its amounts times
 * this: deposits and withdrawals since it opened).
 */
type Occupant = {
  owner: string;
  seed: string;
  slot: number;
  generation: number;
  openedAt: number;
  accruedAt: number;
  valuedAt: number;
  size: number;
};

/** Where a position is: one chain with given protocols, or one of `chains` serving its type (default: mostly sui). */
type Placement = { chain: PositionChain; protocols: SimulatedProtocol[] } | { chains: readonly PositionChain[] };

/** What fills a slot: the variant that draws it, the real type it is answered as in the real-shapes world, where. */
interface SlotKind {
  type: PositionType;
  real?: RealPositionType;
  placement?: Placement;
}

const SUI_KINDS: SlotKind[] = POSITION_TYPES.map((type) => ({ type }));
const REAL_SUI_KINDS: SlotKind[] = REAL_POSITION_TYPES.map((real) => {
  const { builder, protocols } = REAL_TYPE_SHAPES[real];
  return { type: builder, real, placement: { chain: 'sui', protocols } };
});
/** An EVM wallet's variants, each on ethereum or arbitrum. */
const EVM_KINDS: SlotKind[] = (
  [
    ['liquidity_pool', 'CLMM'],
    ['lending_supply', 'Lending'],
    ['lending_borrow', 'Borrow'],
    ['staking', 'Staking'],
    ['farming', 'Farm'],
    ['vesting', 'Vest'],
    ['liquid_staking', 'Staking'],
  ] as const
).map(([type, real]) => ({ type, real, placement: { chains: ['ethereum', 'arbitrum'] } }));
/** Short chain names an EVM wallet's chain filter accepts too. */
const EVM_CHAIN_ABBREVIATIONS = new Map([
  ['eth', 'ethereum'],
  ['arb', 'arbitrum'],
]);
/** Chains as real answers name them. */
const REAL_CHAIN_LABELS: Record<PositionChain, string> = { sui: 'SUI', ethereum: 'ETH', arbitrum: 'ARB' };

/** How many position slots an address has: 0 for the wallets that hold no DeFi positions here. */
export function positionSlotCount(address: string, world: Partial<SimulatorWorld> = {}): number {
  const { format } = parseAddress(address);
  return format === 'evm' || format === 'sui' ? resolveWorld(world).positionsPerAddress : 0;
}

/** The positions of an address at a world time, filtered, exactly as the server answers them. */
export function simulatedPositions(
  address: string,
  worldTimeMs: number,
  seed: string = DEFAULT_SEED,
  world: Partial<SimulatorWorld> = {},
  filter: PositionFilter = {},
): JsonObject[] {
  const { address: owner, format } = parseAddress(address);
  // Solana, Bitcoin and TON wallets hold no DeFi positions here.
  if (format !== 'evm' && format !== 'sui') return [];
  const { realShapes, habits, positionsPerAddress, epochMs, epoch, valuedAt } = worldAt(worldTimeMs, world);
  const kinds = format === 'evm' ? EVM_KINDS : realShapes ? REAL_SUI_KINDS : SUI_KINDS;
  let chain = filter.chain === undefined ? undefined : parseChainFilter(filter.chain).toLowerCase();
  if (chain !== undefined && format === 'evm') chain = EVM_CHAIN_ABBREVIATIONS.get(chain) ?? chain;
  const known = kinds === REAL_SUI_KINDS ? findRealProtocol : findProtocol;
  const { protocols } = filter;
  const unknown = protocols?.find((id) => !known(id));
  if (unknown !== undefined) throw new InvalidInputError(`unknown protocol "${unknown}": see /v2/defi/protocols`);
  const rotation = hashOf(seed, owner, 'variants') % kinds.length;
  const states = habits ? slotStates(walletEvents(owner, 'positions', seed), positionsPerAddress, worldTimeMs) : [];
  const positions: JsonObject[] = [];
  for (let slot = 0; slot < positionsPerAddress; slot++) {
    const occupant = habits
      ? livingOccupant(states[slot]!, owner, seed, slot, valuedAt)
      : epochOccupant(owner, seed, slot, { epoch, epochMs, valuedAt });
    if (occupant === undefined) continue;
    const kind = kinds[(slot + rotation) % kinds.length]!;
    const draws = new Draws(seed, owner, 'position', slot, occupant.generation);
    const build = startBuild(occupant, kind.type, draws, kind.placement);
    if (chain !== undefined && build.chain !== chain) continue;
    if (protocols !== undefined && !protocols.includes(build.protocol.protocol)) continue;
    const position = VARIANTS[kind.type](build);
    if (realShapes && kind.real !== undefined) positions.push(...realPositions(position, kind.real, build, format));
    else positions.push(position);
  }
  return positions;
}

/** A slot's occupant in the default world: it turns over every 2 to 8 epochs and accrues until its valuation. */
function epochOccupant(
  owner: string,
  seed: string,
  slot: number,
  at: { epoch: number; epochMs: number; valuedAt: number },
): Occupant {
  const { generation, openedEpoch } = slotOccupant(`${seed}|${owner}|position|${slot}`, at.epoch, LIFETIME_EPOCHS);
  const { valuedAt } = at;
  return { owner, seed, slot, generation, openedAt: openedEpoch * at.epochMs, accruedAt: valuedAt, valuedAt, size: 1 };
}

/** A slot's occupant in the living world (undefined for an empty slot): named by the change that opened it. */
function livingOccupant(
  state: SlotState | null,
  owner: string,
  seed: string,
  slot: number,
  valuedAt: number,
): Occupant | undefined {
  if (state === null) return undefined;
  const { openedAt, changedAt, resizes } = state;
  return {
    owner,
    seed,
    slot,
    generation: openedAt,
    openedAt,
    accruedAt: changedAt,
    valuedAt,
    size: positionSize(resizes),
  };
}

/**
 * A position respelled as its real type (real-positions.ts). A Borrow's `input` is its collateral, a
 * whole Lending position; a SUI wallet's CLMM slot holds a second LP position with the same
 * positionId and pool. Both are drawn from the slot's occupant, so they stay the same while it lives.
 */
function realPositions(position: JsonObject, type: RealPositionType, build: Build, format: 'sui' | 'evm') {
  const chain = { label: REAL_CHAIN_LABELS[build.chain], tokens: build.chain };
  const valuedAt = { ms: build.valuedAt, seed: build.seed };
  // A Borrow's collateral is what its default-world answer pledges in `input`, as a whole Lending position.
  const [pledged] = position.input as JsonObject[];
  const pledge = type === 'Borrow' ? readPledge(build.chain, pledged!) : undefined;
  const related = (variant: PositionType, role: string) => {
    const draws = new Draws(build.seed, build.owner, role, build.slot, build.generation);
    const placement = { chain: build.chain, protocols: [build.protocol] };
    return VARIANTS[variant]({ ...startBuild(build, variant, draws, placement), pledge });
  };
  const collateral =
    type === 'Borrow'
      ? realShapePosition(related('lending_supply', 'collateral'), 'Lending', chain, valuedAt)
      : undefined;
  const positions = [realShapePosition(position, type, chain, valuedAt, collateral)];
  if (type === 'CLMM' && format === 'sui') {
    const second = {
      ...related('liquidity_pool', 'second-lp'),
      positionId: position.positionId!,
      poolId: position.poolId!,
    };
    positions.push(realShapePosition(second, type, chain, valuedAt));
  }
  return positions;
}

/**
 * What a variant builds from: the occupant, its type, chain and protocol, its draws and its age; a
 * pledge makes a lending_supply hold that token and amount (a Borrow's collateral).
 */
type Build = ReturnType<typeof startBuild> & { pledge?: Pledge };
type Pledge = { token: PositionToken; amount: number };

/** The token and amount of an amount entry whose token is an object. */
function readPledge(chain: PositionChain, entry: JsonObject): Pledge {
  const address = (entry.token as JsonObject).address;
  const token = positionTokens(chain).find((candidate) => candidate.address === address)!;
  return { token, amount: Number(entry.amount) };
}

function startBuild(occupant: Occupant, type: PositionType, draws: Draws, placement?: Placement) {
  const roll = draws.unit();
  let chain: PositionChain = roll < 0.75 ? 'sui' : roll < 0.9 ? 'ethereum' : 'arbitrum';
  if (placement && 'chains' in placement) {
    const served = placement.chains.filter((option) => protocolsFor(type, option).length > 0);
    chain = served[Math.floor(roll * served.length)]!;
  } else if (placement) chain = placement.chain;
  else if (protocolsFor(type, chain).length === 0) chain = 'sui';
  const candidates = placement && 'protocols' in placement ? placement.protocols : protocolsFor(type, chain);
  const ageYears = (occupant.accruedAt - occupant.openedAt) / YEAR_MS;
  return { ...occupant, type, chain, protocol: draws.pick(candidates), draws, ageYears };
}

/**
 * The variants whose amount entries carry token objects (the others the address) and numeric strings
 * (the others numbers): the document leaves the types open.
 */
const TOKEN_OBJECTS: PositionType[] = ['lending_supply', 'lending_borrow', 'farming', 'perp'];
const NUMERIC_STRINGS: PositionType[] = ['lending_borrow', 'vesting', 'vault'];

function numeric(build: Build, value: number): number | string {
  const rounded = significant(value, 12);
  return NUMERIC_STRINGS.includes(build.type) ? String(rounded) : rounded;
}

/** A token's price at the valuation time, or at `timeMs`. */
function priceOf(build: Build, token: PositionToken, timeMs = build.valuedAt): number | null {
  return positionTokenPrice(token, timeMs, build.seed);
}

function tokenRef(build: Build, token: PositionToken, withPrice: boolean): Json {
  if (!TOKEN_OBJECTS.includes(build.type)) return token.address;
  const ref: JsonObject = { address: token.address, symbol: token.symbol, decimals: token.decimals };
  const price = priceOf(build, token);
  if (withPrice && price !== null) ref.price = price;
  return ref;
}

/** An amount entry, valued at the valuation time. */
function entry(build: Build, token: PositionToken, amount: number, withPrice = true): JsonObject {
  const price = priceOf(build, token);
  return {
    amount: numeric(build, amount),
    value: price === null ? null : numeric(build, amount * price),
    token: tokenRef(build, token, withPrice),
  };
}

/** How much of a token `usd` dollars bought when the position opened, times its size. */
function amountFor(build: Build, token: PositionToken, usd: number): number {
  return (build.size * usd) / (priceOf(build, token, build.openedAt) ?? 1);
}

function pickToken(build: Build, role: PositionToken['role']): PositionToken {
  return build.draws.pick(positionTokens(build.chain, role));
}

/** The fields every variant but perp starts with. */
function head(build: Build, positionId: Json = `0x${build.draws.hex(64)}`): JsonObject {
  return { positionId, owner: build.owner, chain: build.chain, type: build.type };
}

function meta(build: Build): JsonObject {
  const { name, logo, url, protocol } = build.protocol;
  return { protocol: { name, logo, url, protocol } };
}

function farmingEntry(build: Build, baseApr: number, rewardsApr: number, rewards: Json): JsonObject {
  const totalApr = baseApr + rewardsApr;
  return {
    base_apr: numeric(build, baseApr),
    rewards_apr: numeric(build, rewardsApr),
    total_apr: numeric(build, totalApr),
    total_apy: numeric(build, Math.expm1(Math.log1p(totalApr / 365) * 365)),
    rewards,
  };
}

const VARIANTS: Record<PositionType, (build: Build) => JsonObject> = {
  /** Two-token concentrated liquidity: constant-product amounts, ticks, fee tier, optional farm. */
  liquidity_pool(build) {
    const id: Json = build.chain === 'sui' ? `0x${build.draws.hex(64)}` : build.draws.integer(100_000, 999_999);
    const a = pickToken(build, 'major');
    const b = pickToken(build, 'stable');
    const usd = build.draws.between(100, 50_000);
    const a0 = amountFor(build, a, usd / 2);
    const b0 = amountFor(build, b, usd / 2);
    const ratio = (priceOf(build, a) ?? 1) / (priceOf(build, b) ?? 1);
    const k = a0 * b0;
    const feeApr = build.draws.between(0.02, 0.3);
    const fees = build.ageYears * feeApr * 0.5;
    const tick = build.draws.integer(-60_000, 60_000);
    const farmed = build.draws.chance(0.5);
    const reward = pickToken(build, 'reward');
    return {
      ...head(build, id),
      input: [entry(build, a, a0), entry(build, b, b0)],
      yieldCollected: [entry(build, a, a0 * fees * 0.4), entry(build, b, b0 * fees * 0.4)],
      current: {
        tokens: [entry(build, a, Math.sqrt(k / ratio)), entry(build, b, Math.sqrt(k * ratio))],
        yield: [entry(build, a, a0 * fees * 0.6), entry(build, b, b0 * fees * 0.6)],
      },
      fee: build.draws.pick([0.0001, 0.0005, 0.0025, 0.003, 0.01]),
      farming: farmed
        ? [
            farmingEntry(build, feeApr, build.draws.between(0.01, 0.3), [
              entry(build, reward, usd * build.ageYears * 0.01),
            ]),
          ]
        : [],
      meta: meta(build),
      poolId: `0x${build.draws.hex(64)}`,
      tickLower: tick,
      tickUpper: tick + build.draws.pick([10, 60, 200, 2000]),
      inRange: build.draws.chance(0.7),
      liquidity: String(Math.floor(Math.sqrt(k) * 1e6)),
    };
  },

  /** Supplied to a lending market: token objects with price, no yieldCollected, farming null. */
  lending_supply(build) {
    const drawn = pickToken(build, build.draws.chance(0.5) ? 'stable' : 'major');
    const drawnAmount = amountFor(build, drawn, build.draws.between(50, 100_000));
    const { token, amount: supplied } = build.pledge ?? { token: drawn, amount: drawnAmount };
    const apy = build.draws.between(0.005, 0.15);
    return {
      ...head(build),
      input: [entry(build, token, supplied)],
      current: {
        tokens: [entry(build, token, supplied * (1 + apy * build.ageYears))],
        yield: [entry(build, token, supplied * apy * build.ageYears)],
      },
      fee: 0,
      farming: null,
      meta: meta(build),
      supplyApy: significant(apy, 6),
      collateral: build.draws.chance(0.8),
      healthFactor: significant(build.draws.between(1.05, 12), 6),
    };
  },

  /**
   * Borrowed from a lending market against collateral (`input`): numeric strings, rewards as an
   * object keyed by symbol, the health factor of its collateral and debt at the valuation time.
   */
  lending_borrow(build) {
    const token = pickToken(build, 'stable');
    const reward = pickToken(build, 'reward');
    const borrowed = amountFor(build, token, build.draws.between(50, 40_000));
    const apr = build.draws.between(0.02, 0.2);
    const rewardsApr = build.draws.between(0, 0.05);
    const debt = borrowed * (1 + apr * build.ageYears);
    const collateral = borrowCollateral(build, token, debt);
    const collateralValue = collateral.amount * (priceOf(build, collateral.token) ?? 0);
    const debtValue = debt * (priceOf(build, token) ?? 1);
    return {
      ...head(build),
      input: [entry(build, collateral.token, collateral.amount)],
      yieldCollected: [],
      current: {
        tokens: [entry(build, token, debt)],
        yield: [entry(build, token, borrowed * apr * build.ageYears)],
      },
      fee: numeric(build, build.draws.between(0, 0.001)),
      farming: [
        farmingEntry(build, -apr, rewardsApr, {
          [reward.symbol]: numeric(build, borrowed * rewardsApr * build.ageYears),
        }),
      ],
      meta: meta(build),
      borrowApy: significant(apr, 6),
      healthFactor: significant((collateralValue * collateral.threshold) / debtValue, 6),
      liquidationThreshold: significant(collateral.threshold, 4),
      debt: true,
    };
  },

  /** Staked with a validator or a staking pool: rewards as a plain number. */
  staking(build) {
    const token = pickToken(build, 'major');
    const staked = amountFor(build, token, build.draws.between(100, 200_000));
    const apr = build.draws.between(0.02, 0.08);
    const earned = staked * apr * build.ageYears;
    return {
      ...head(build),
      input: [entry(build, token, staked)],
      yieldCollected: [entry(build, token, earned * 0.25)],
      current: { tokens: [entry(build, token, staked)], yield: [entry(build, token, earned * 0.75)] },
      fee: significant(build.draws.pick([0.02, 0.05, 0.08, 0.1]), 4),
      farming: [farmingEntry(build, apr, 0, significant(earned, 12))],
      meta: meta(build),
      validator: `0x${build.draws.hex(build.chain === 'sui' ? 64 : 40)}`,
      stakedAt: new Date(build.openedAt).toISOString(),
      status: 'active',
    };
  },

  /** An LP token staked in a farm: token objects without price, rewards as amount entries. */
  farming(build) {
    const a = pickToken(build, 'major');
    const b = pickToken(build, 'stable');
    const reward = pickToken(build, 'reward');
    const usd = build.draws.between(100, 30_000);
    const rewardsApr = build.draws.between(0.05, 0.6);
    const rewardAmount = amountFor(build, reward, usd * rewardsApr * build.ageYears);
    const lpTokens = () => [a, b].map((token) => entry(build, token, amountFor(build, token, usd / 2), false));
    const rewardShare = () => [entry(build, reward, rewardAmount * 0.5, false)];
    return {
      ...head(build),
      input: lpTokens(),
      yieldCollected: rewardShare(),
      current: { tokens: lpTokens(), yield: rewardShare() },
      fee: significant(build.draws.between(0, 0.02), 6),
      farming: [farmingEntry(build, build.draws.between(0.01, 0.1), rewardsApr, rewardShare())],
      meta: meta(build),
      farmId: `0x${build.draws.hex(64)}`,
      boost: significant(build.draws.between(1, 2.5), 4),
    };
  },

  /** Tokens unlocking over time: no input, no yieldCollected, no current.yield, fee and farming null. */
  vesting(build) {
    const token = pickToken(build, 'reward');
    const total = amountFor(build, token, build.draws.between(500, 100_000));
    const durationMs = build.draws.integer(30, 720) * 86_400_000;
    const vested = Math.min(1, (build.accruedAt - build.openedAt) / durationMs);
    const claimedShare = vested * build.draws.between(0, 1);
    return {
      ...head(build),
      input: [],
      current: { tokens: [entry(build, token, total * (1 - claimedShare))] },
      fee: null,
      farming: null,
      meta: meta(build),
      unlockAt: build.openedAt + durationMs,
      cliffAt: build.openedAt + Math.floor(durationMs / 4),
      totalAmount: numeric(build, total),
      vestedAmount: numeric(build, total * vested),
      claimedAmount: numeric(build, total * claimedShare),
    };
  },

  /**
   * A leveraged perpetual: no owner field, collateral plus unrealized PnL, market details. Its
   * stop-loss and take-profit bound the PnL to -40 %..+60 % of the collateral (positions of the
   * living world live for months; the simulator does not liquidate).
   */
  perp(build) {
    const collateralToken = pickToken(build, 'stable');
    const market = pickToken(build, 'major');
    const collateral = amountFor(build, collateralToken, build.draws.between(50, 20_000));
    const leverage = build.draws.pick([1.5, 2, 3]);
    const side = build.draws.chance(0.6) ? 'long' : 'short';
    const entryPrice = priceOf(build, market, build.openedAt) ?? 1;
    const markPrice = priceOf(build, market) ?? entryPrice;
    const sizeUsd = collateral * leverage;
    const move = (markPrice - entryPrice) / entryPrice;
    const pnl = Math.min(0.6 * collateral, Math.max(-0.4 * collateral, sizeUsd * (side === 'long' ? move : -move)));
    return {
      positionId: `0x${build.draws.hex(64)}`,
      chain: build.chain,
      type: build.type,
      input: [entry(build, collateralToken, collateral)],
      current: { tokens: [entry(build, collateralToken, collateral + pnl)], yield: [] },
      fee: significant(sizeUsd * 0.0006, 10),
      farming: [],
      meta: meta(build),
      market: `${market.symbol}-PERP`,
      side,
      leverage,
      sizeUsd: significant(sizeUsd, 10),
      entryPrice: significant(entryPrice, 10),
      markPrice: significant(markPrice, 10),
      liquidationPrice: significant(entryPrice * (side === 'long' ? 1 - 0.9 / leverage : 1 + 0.9 / leverage), 10),
      unrealizedPnl: significant(pnl, 10),
    };
  },

  /** Shares of a yield vault: numeric strings, fee as a string, farming with empty rewards. */
  vault(build) {
    const token = pickToken(build, build.draws.chance(0.5) ? 'stable' : 'major');
    const deposited = amountFor(build, token, build.draws.between(100, 80_000));
    const apy = build.draws.between(0.02, 0.25);
    const sharePrice = 1 + apy * build.ageYears;
    return {
      ...head(build),
      input: [entry(build, token, deposited)],
      yieldCollected: [],
      current: {
        tokens: [entry(build, token, deposited * sharePrice)],
        yield: [entry(build, token, deposited * (sharePrice - 1))],
      },
      fee: String(build.draws.pick([0.1, 0.15, 0.2])),
      farming: [farmingEntry(build, apy, 0, [])],
      meta: meta(build),
      vaultId: `0x${build.draws.hex(build.chain === 'sui' ? 64 : 40)}`,
      shares: numeric(build, deposited),
      sharePrice: significant(sharePrice, 12),
      strategy: build.draws.pick(['lending-loop', 'clmm-rebalance', 'delta-neutral', 'stable-yield']),
    };
  },

  /**
   * The native token swapped for a liquid staking token at the exchange rate of the day it opened:
   * the token amount stays, its price follows the native token and the rate (liquid-staking.ts), so
   * the position earns the staking yield. No yieldCollected, farming null.
   */
  liquid_staking(build) {
    const native = positionTokens(build.chain, 'major')[0]!;
    const lst = pickToken(build, 'liquid_staking');
    const staked = amountFor(build, native, build.draws.between(100, 100_000));
    const terms = liquidStakingToken(lst.address)!;
    return {
      ...head(build),
      input: [entry(build, native, staked)],
      current: { tokens: [entry(build, lst, staked / exchangeRate(terms, build.openedAt))], yield: [] },
      fee: 0,
      farming: null,
      meta: meta(build),
      lstCoinType: lst.address,
      exchangeRate: significant(exchangeRate(terms, build.valuedAt), 12),
      apy: significant(terms.apy, 6),
    };
  },
};

/**
 * A loan's collateral: a major token worth `cushion` (1.1 to 1.5) times the debt at its highest
 * price, at the collateral's lowest price, over the liquidation threshold, so that its health factor
 * (collateral value × threshold / debt value) stays above 1 whatever the prices do, and nears its
 * limit when the collateral's price falls (typically 1.3 to 3). Drawn apart from the loan's own draws.
 */
function borrowCollateral(build: Build, debtToken: PositionToken, debt: number) {
  const draws = new Draws(build.seed, build.owner, 'borrow-collateral', build.slot, build.generation);
  const token = draws.pick(positionTokens(build.chain, 'major'));
  const threshold = draws.between(0.6, 0.85);
  const cushion = draws.between(1.1, 1.5);
  const debtHigh = debt * positionTokenPriceRange(debtToken, build.seed).high;
  const amount = (cushion * debtHigh) / (threshold * positionTokenPriceRange(token, build.seed).low);
  return { token, amount, threshold };
}
