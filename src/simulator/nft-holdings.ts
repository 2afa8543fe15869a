import { normalizeAddress, parseAddress, parseNftChain } from '../chain/address.ts';
import type { AddressFormat, NftChain } from '../chain/address-formats.ts';
import { walletEvents } from './change-events.ts';
import { Draws, hashOf, significant } from './hash.ts';
import type { Json, JsonObject } from './json.ts';
import { positionTokenPrice, positionTokens } from './position-tokens.ts';
import { modelPriceAt, priceModel } from './price-model.ts';
import { holdingCount, slotStates, type SlotState } from './slot-history.ts';
import { simulatedTokenPrice } from './token-prices.ts';
import { DEFAULT_SEED, resolveWorld, slotOccupant, worldAt, type SimulatorWorld } from './world.ts';

/**
 * NFT holdings of the simulated upstream. A seed has a pool of collections shared by all addresses;
 * an address holds `collectionsPerAddress` of them (each kept 4 to 16 epochs) with
 * `tokensPerCollection` tokens each (each kept 1 to 6 epochs, then sold and another bought), so moving
 * the clock changes the holdings. In the living world (world.habits) collections come and go and the
 * number of tokens held changes at the wallet's NFT change events instead (slot-history.ts): a new
 * collection is drawn from the pool and may, rarely, be the one it replaces (then only the token
 * ids change). Prices are in the chain's native token, constant per epoch or per
 * valuation step (world.valuationMs). `marketPrice` is the USD price of the chain's native token, as
 * the real service answers it (the same for every collection of a chain).
 */
const COLLECTION_POOL_SIZE = 400;
const COLLECTION_LIFETIME = { min: 4, max: 16 };
const TOKEN_LIFETIME = { min: 1, max: 6 };

type HoldingChain = Exclude<NftChain, 'ALL'>;

/** The chains holdings are spread over, weighted by repetition (mostly SUI). */
const CHAIN_ODDS = 'SUI SUI SUI SUI SUI SUI SUI SUI ETH ETH ETH SOL SOL ARB BASE BTC TON MATIC BNB AVAX OP'.split(' ');

const ETHER = { name: 'Ethereum', cmcId: 1027, cmc_slug: 'ethereum', cgId: 'ethereum', symbol: 'ETH', decimals: 18 };
const NATIVE_TOKENS: Record<HoldingChain, typeof ETHER> = {
  SUI: { name: 'Sui', cmcId: 20947, cmc_slug: 'sui', cgId: 'sui', symbol: 'SUI', decimals: 9 },
  ETH: ETHER,
  ARB: ETHER,
  BASE: ETHER,
  OP: ETHER,
  SCROLL: ETHER,
  ZKSYNC: ETHER,
  SOL: { name: 'Solana', cmcId: 5426, cmc_slug: 'solana', cgId: 'solana', symbol: 'SOL', decimals: 9 },
  BTC: { name: 'Bitcoin', cmcId: 1, cmc_slug: 'bitcoin', cgId: 'bitcoin', symbol: 'BTC', decimals: 8 },
  TON: { name: 'Toncoin', cmcId: 11419, cmc_slug: 'toncoin', cgId: 'the-open-network', symbol: 'TON', decimals: 9 },
  FANTOM: { name: 'Fantom', cmcId: 3513, cmc_slug: 'fantom', cgId: 'fantom', symbol: 'FTM', decimals: 18 },
  RON: { name: 'Ronin', cmcId: 14101, cmc_slug: 'ronin', cgId: 'ronin', symbol: 'RON', decimals: 18 },
  BNB: { name: 'BNB', cmcId: 1839, cmc_slug: 'bnb', cgId: 'binancecoin', symbol: 'BNB', decimals: 18 },
  AVAX: { name: 'Avalanche', cmcId: 5805, cmc_slug: 'avalanche', cgId: 'avalanche-2', symbol: 'AVAX', decimals: 18 },
  MATIC: { name: 'Polygon', cmcId: 3890, cmc_slug: 'polygon', cgId: 'matic-network', symbol: 'MATIC', decimals: 18 },
};
/** USD reference prices of the native tokens that are not SUI or ether (those follow the positions' series). */
const OTHER_NATIVE_USD: Partial<Record<HoldingChain, number>> = {
  SOL: 150,
  BTC: 65_000,
  TON: 5,
  FANTOM: 0.5,
  RON: 2,
  BNB: 550,
  AVAX: 30,
  MATIC: 0.7,
};

/** Typical floor prices in native units, as log10 ranges. */
const FLOOR_RANGES: Partial<Record<HoldingChain, [number, number]>> = {
  SUI: [0, 3],
  SOL: [-1, 2],
  BTC: [-3.5, -1],
  TON: [0, 3],
  BNB: [-2, 0.5],
  AVAX: [-1, 1.5],
  MATIC: [0, 3],
};

const ADJECTIVES = 'Sleepy Cosmic Pixel Bored Lucky Frosty Neon Ancient Tiny Wild Golden Shadow'.split(' ');
const NOUNS = 'Capys Frens Apes Punks Otters Dragons Koalas Robots Wizards Foxes Turtles Ghosts'.split(' ');
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function chars(draws: Draws, alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(draws.unit() * alphabet.length)];
  return out;
}

const collections = new Map<string, Collection>();

/** Collection `index` of a seed's pool (memoized: the pool is small and shared by every address). */
function poolCollection(seed: string, index: number): Collection {
  const key = `${seed}\u0000${index}`;
  if (!collections.has(key)) collections.set(key, drawCollection(seed, index));
  return collections.get(key)!;
}

function drawCollection(seed: string, index: number) {
  const draws = new Draws(seed, 'nft-collection', index);
  const chain = draws.pick(CHAIN_ODDS) as HoldingChain;
  const name = `${draws.pick(ADJECTIVES)} ${draws.pick(NOUNS)}${draws.chance(0.3) ? ` ${draws.integer(2, 9)}` : ''}`;
  const slug = name.toLowerCase().replace(/\s+/g, '-');
  const id = collectionId(draws, chain, name);
  const totalItems = draws.integer(100, 10_000);
  const scam = draws.chance(0.05);
  const [low, high] = FLOOR_RANGES[chain] ?? [-2.5, 0.5];
  const imageBase = `https://images.simulated.chaintap.dev/nft/${slug}-${index}`;
  const royalty = significant(draws.pick([0, 0.025, 0.05, 0.075, 0.1]), 4);
  const floor = priceModel(`nft:${id}`, seed, { base: 10 ** draws.between(low, high) });
  // The draw of a former per-collection market premium, kept so that the values drawn after it stay the same.
  draws.between(1.02, 1.3);
  return {
    chain,
    id,
    name,
    totalItems,
    royalty,
    imageBase,
    floor,
    wire: {
      description: `${name}: ${totalItems} collectibles on ${chain}.`,
      externalUrl: `https://${slug}.example.com`,
      id,
      imageUrl: `${imageBase}/cover.png`,
      name,
      totalItems,
      chain,
      verified: !scam && draws.chance(0.5),
      scam,
    },
  };
}
type Collection = ReturnType<typeof drawCollection>;

function collectionId(draws: Draws, chain: HoldingChain, name: string): string {
  const module = name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  if (chain === 'SUI') return `0x${draws.hex(64)}::${module}::${name.replace(/[^A-Za-z0-9]/g, '')}`;
  if (chain === 'BTC') return `${module}-ordinals`;
  return solanaOrTonAddress(draws, chain) ?? `0x${draws.hex(40)}`;
}

function tokenIdFor(collection: Collection, number: number, seed: string): string {
  const draws = new Draws(seed, 'nft-token', collection.id, number);
  if (collection.chain === 'SUI') return `0x${draws.hex(64)}`;
  if (collection.chain === 'BTC') return `${draws.hex(64)}i0`;
  return solanaOrTonAddress(draws, collection.chain) ?? String(number);
}

/** Ids on Solana and TON are addresses (base58, user-friendly base64url); undefined on other chains. */
function solanaOrTonAddress(draws: Draws, chain: HoldingChain): string | undefined {
  if (chain === 'SOL') return chars(draws, BASE58, 44);
  if (chain === 'TON') return `EQ${chars(draws, BASE64URL, 46)}`;
  return undefined;
}

export interface NftHoldingsQuery {
  /** One of NFT_CHAINS (case-insensitive), default ALL. */
  chain?: string;
  includePnl?: boolean;
}

/**
 * The chains a wallet of each format holds collections on (by default any, mostly SUI), and at most
 * how many: a Bitcoin wallet one ordinals collection, a TON wallet none.
 */
const WALLET_NFTS: Record<AddressFormat, { chains?: readonly HoldingChain[]; most?: number }> = {
  sui: {},
  evm: { chains: ['ETH', 'BASE'] },
  solana: { chains: ['SOL'] },
  bitcoin: { chains: ['BTC'], most: 1 },
  ton: { chains: ['TON'], most: 0 },
};

const WHOLE_POOL = Array.from({ length: COLLECTION_POOL_SIZE }, (_, index) => index);
const poolIndicesByChains = new Map<string, number[]>();

/** The indices of a seed's pool whose collection is on one of `chains` (memoized). */
function poolIndicesOn(seed: string, chains: readonly HoldingChain[]): number[] {
  const key = `${seed}\u0000${chains.join(',')}`;
  const indices =
    poolIndicesByChains.get(key) ?? WHOLE_POOL.filter((index) => chains.includes(poolCollection(seed, index).chain));
  poolIndicesByChains.set(key, indices);
  return indices;
}

/** The NFT holding groups of an address at a world time, exactly as the server answers them. */
export function simulatedNftHoldings(
  address: string,
  worldTimeMs: number,
  seed: string = DEFAULT_SEED,
  world: Partial<SimulatorWorld> = {},
  query: NftHoldingsQuery = {},
): JsonObject[] {
  const { address: owner, format } = parseAddress(address);
  const chain = parseNftChain(query.chain ?? 'ALL');
  const holder = { ...worldAt(worldTimeMs, world), owner, seed, includePnl: query.includePnl === true };
  const { epoch, habits } = holder;
  const wallet = WALLET_NFTS[format];
  const pool = wallet.chains ? poolIndicesOn(seed, wallet.chains) : WHOLE_POOL;
  const slots = nftSlotCount(address, seed, world);
  const states = habits ? slotStates(walletEvents(owner, 'nfts', seed), slots, worldTimeMs) : [];
  const held = new Set<number>();
  const groups: JsonObject[] = [];
  for (let slot = 0; slot < slots; slot++) {
    const state = states[slot] ?? null;
    if (habits && state === null) continue;
    const generation =
      state?.openedAt ?? slotOccupant(`${seed}|${owner}|nft-group|${slot}`, epoch, COLLECTION_LIFETIME).generation;
    let at = new Draws(seed, owner, 'nft-group', slot, generation).integer(0, pool.length - 1);
    while (held.has(pool[at]!)) at = (at + 1) % pool.length;
    held.add(pool[at]!);
    const collection = poolCollection(seed, pool[at]!);
    if (chain !== 'ALL' && collection.chain !== chain) continue;
    const tokens = state ? livingTokens(holder, state) : epochTokens(holder, slot);
    groups.push(holdingGroup(holder, collection, tokens));
  }
  return groups;
}

/** How many collections an address holds at most (its slots): 0 for a wallet that holds no NFTs. */
export function nftSlotCount(
  address: string,
  seed: string = DEFAULT_SEED,
  world: Partial<SimulatorWorld> = {},
): number {
  const wallet = WALLET_NFTS[parseAddress(address).format];
  const pool = wallet.chains ? poolIndicesOn(seed, wallet.chains) : WHOLE_POOL;
  return Math.min(resolveWorld(world).collectionsPerAddress, wallet.most ?? Infinity, pool.length);
}

/** The tokens a group holds: each one's generation (which token) and when it was bought; turnover names the group's trades. */
type GroupTokens = { held: { generation: number; boughtAt: number }[]; turnover: number };

/** Default world: each of tokensPerCollection tokens is sold and another bought every 1 to 6 epochs. */
function epochTokens(holder: Holder, slot: number): GroupTokens {
  const { seed, owner, epoch, epochMs } = holder;
  const held = Array.from({ length: holder.tokensPerCollection }, (_, k) => {
    const occupant = slotOccupant(`${seed}|${owner}|nft|${slot}|${k}`, epoch, TOKEN_LIFETIME);
    return { generation: occupant.generation, boughtAt: occupant.openedEpoch * epochMs };
  });
  return { held, turnover: held.reduce((sum, token) => sum + token.generation, 0) };
}

/** Living world: tokensPerCollection (at least one) bought when the collection arrived, then bought and sold at its resizes. */
function livingTokens(holder: Holder, state: SlotState): GroupTokens {
  const count = holdingCount(Math.max(1, holder.tokensPerCollection), state.resizes);
  const held = Array.from({ length: count }, () => ({ generation: state.openedAt, boughtAt: state.openedAt }));
  return { held, turnover: state.changedAt };
}

/** Whose holdings are drawn, in which world at which time. */
type Holder = ReturnType<typeof worldAt> & { owner: string; seed: string; includePnl: boolean };

function holdingGroup(holder: Holder, collection: Collection, { held, turnover }: GroupTokens): JsonObject {
  const { owner, seed, valuedAt } = holder;
  const floorPrice = modelPriceAt(collection.floor, valuedAt);
  const numbers = new Set<number>();
  const tokens: JsonObject[] = [];
  let unrealized = 0;
  for (const [k, { generation, boughtAt }] of held.entries()) {
    const draws = new Draws(seed, owner, 'nft', collection.id, k, generation);
    let number = draws.integer(1, collection.totalItems);
    while (numbers.has(number)) number = (number % collection.totalItems) + 1;
    numbers.add(number);
    const rarity = new Draws(seed, 'nft-rarity', collection.id, number);
    const rarityScore = significant(rarity.between(1, 300), 6);
    const price = significant(floorPrice * (1 + rarityScore / 600), 10);
    const openingFloor = modelPriceAt(collection.floor, boughtAt);
    const cost = significant(openingFloor * draws.between(0.7, 1.3), 10);
    unrealized += price - cost;
    tokens.push({
      royalty: collection.royalty,
      imageUrl: `${collection.imageBase}/${number}.png`,
      tokenId: tokenIdFor(collection, number, seed),
      contractAddress: collection.id,
      name: `${collection.name} #${number}`,
      rarityScore,
      rank: String(rarity.integer(1, collection.totalItems)),
      price,
      cost,
    });
  }
  const group: JsonObject = {
    owner,
    nativeToken: { ...NATIVE_TOKENS[collection.chain] },
    collection: collection.wire,
    collectionId: collection.id,
    tokens,
    floorPrice: significant(floorPrice, 10),
    marketPrice: nativeTokenUsdPrice(collection.chain, valuedAt, seed),
  };
  if (holder.includePnl) {
    const realized = new Draws(seed, owner, 'nft-realized', collection.id, turnover).between(-2, 5) * floorPrice;
    group.profit = { realizedPnL: significant(realized, 10), unrealizedPnL: significant(unrealized, 10) };
  }
  return group;
}

/** USD price of a chain's native token; SUI and ether follow the positions' series (one world agrees with itself). */
function nativeTokenUsdPrice(chain: HoldingChain, timeMs: number, seed: string): number {
  if (chain === 'SUI') return simulatedTokenPrice('0x2::sui::SUI', timeMs, seed) ?? 0;
  if (NATIVE_TOKENS[chain] === ETHER)
    return positionTokenPrice(positionTokens('ethereum', 'major')[0]!, timeMs, seed) ?? 0;
  const model = priceModel(`native:${chain}`, seed, { base: OTHER_NATIVE_USD[chain] ?? 1 });
  return significant(modelPriceAt(model, timeMs), 10);
}

/**
 * The whole NFT-holdings answer: the bare array the document describes or, for about half the
 * addresses of the real-shapes world, `{ data: [...] }` as the service's own client reads it. Takes
 * simulatedNftHoldings' arguments.
 */
export function simulatedNftAnswer(...args: Parameters<typeof simulatedNftHoldings>): Json {
  const [address, , seed = DEFAULT_SEED, world = {}] = args;
  const groups = simulatedNftHoldings(...args);
  const wrapped =
    resolveWorld(world).realShapes && hashOf(seed, normalizeAddress(address), 'nft-answer-wrapped') % 2 === 0;
  return wrapped ? { data: groups } : groups;
}
