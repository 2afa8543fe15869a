import { normalizeAddress, parseAddress, parseNftChain, type AddressFormat, type NftChain } from '../chain/address.ts';
import { Draws, hashOf, significant } from './hash.ts';
import type { Json, JsonObject } from './json.ts';
import { nativeTokenUsdPrice } from './native-token-prices.ts';
import { modelPriceAt, priceModel, type PriceModel } from './price-model.ts';
import { DEFAULT_SEED, epochOf, resolveWorld, slotOccupant, valuationTime, type SimulatorWorld } from './world.ts';

/**
 * NFT holdings of the simulated upstream. A seed has a pool of collections shared by all addresses;
 * an address holds `collectionsPerAddress` of them (each kept 4 to 16 epochs) with
 * `tokensPerCollection` tokens each (each kept 1 to 6 epochs, then sold and another bought), so moving
 * the clock changes the holdings. Prices are in the chain's native token, constant per epoch or per valuation step
 * (world.valuationMs). `marketPrice` is the USD price of the chain's native token, as the real service
 * answers it (the same for every collection of a chain).
 */
const COLLECTION_POOL_SIZE = 400;
const COLLECTION_LIFETIME = { min: 4, max: 16 };
const TOKEN_LIFETIME = { min: 1, max: 6 };

type HoldingChain = Exclude<NftChain, 'ALL'>;

/** The chains holdings are spread over, weighted by repetition (mostly SUI). */
const CHAIN_WEIGHTS: readonly HoldingChain[] = [
  'SUI',
  'SUI',
  'SUI',
  'SUI',
  'SUI',
  'SUI',
  'SUI',
  'SUI',
  'ETH',
  'ETH',
  'ETH',
  'SOL',
  'SOL',
  'ARB',
  'BASE',
  'BTC',
  'TON',
  'MATIC',
  'BNB',
  'AVAX',
  'OP',
];

interface NativeToken {
  name: string;
  cmcId: number;
  cmc_slug: string;
  cgId: string;
  symbol: string;
  decimals: number;
}

const ETHER: NativeToken = {
  name: 'Ethereum',
  cmcId: 1027,
  cmc_slug: 'ethereum',
  cgId: 'ethereum',
  symbol: 'ETH',
  decimals: 18,
};
const NATIVE_TOKENS: Record<HoldingChain, NativeToken> = {
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

const ADJECTIVES = [
  'Sleepy',
  'Cosmic',
  'Pixel',
  'Bored',
  'Lucky',
  'Frosty',
  'Neon',
  'Ancient',
  'Tiny',
  'Wild',
  'Golden',
  'Shadow',
];
const NOUNS = [
  'Capys',
  'Frens',
  'Apes',
  'Punks',
  'Otters',
  'Dragons',
  'Koalas',
  'Robots',
  'Wizards',
  'Foxes',
  'Turtles',
  'Ghosts',
];
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

interface Collection {
  index: number;
  chain: HoldingChain;
  wire: JsonObject;
  id: string;
  name: string;
  totalItems: number;
  royalty: number;
  imageBase: string;
  floor: PriceModel;
}

const collections = new Map<string, Collection>();

function chars(draws: Draws, alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(draws.unit() * alphabet.length)];
  return out;
}

/** Collection c of a seed's pool (memoized: the pool is small and shared by every address). */
function poolCollection(seed: string, index: number): Collection {
  const key = `${seed}\u0000${index}`;
  const known = collections.get(key);
  if (known) return known;
  const draws = new Draws(seed, 'nft-collection', index);
  const chain = draws.pick(CHAIN_WEIGHTS);
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
  const collection: Collection = {
    index,
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
  collections.set(key, collection);
  return collection;
}

function collectionId(draws: Draws, chain: HoldingChain, name: string): string {
  const module = name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  switch (chain) {
    case 'SUI':
      return `0x${draws.hex(64)}::${module}::${name.replace(/[^A-Za-z0-9]/g, '')}`;
    case 'SOL':
      return chars(draws, BASE58, 44);
    case 'BTC':
      return `${module}-ordinals`;
    case 'TON':
      return `EQ${chars(draws, BASE64URL, 46)}`;
    default:
      return `0x${draws.hex(40)}`;
  }
}

function tokenIdFor(collection: Collection, number: number, seed: string): string {
  const draws = new Draws(seed, 'nft-token', collection.id, number);
  switch (collection.chain) {
    case 'SUI':
      return `0x${draws.hex(64)}`;
    case 'SOL':
      return chars(draws, BASE58, 44);
    case 'BTC':
      return `${draws.hex(64)}i0`;
    case 'TON':
      return `EQ${chars(draws, BASE64URL, 46)}`;
    default:
      return String(number);
  }
}

export interface NftHoldingsQuery {
  /** One of NFT_CHAINS (case-insensitive), default ALL. */
  chain?: string;
  includePnl?: boolean;
}

/** The NFT holding groups of an address at a world time, exactly as the server answers them. */
/**
 * The chains a wallet of each format holds collections on, and how many of its slots it fills: a
 * SUI wallet any chain (mostly SUI), an EVM wallet ETH and BASE, a Solana wallet SOL, a Bitcoin
 * wallet one ordinals collection, a TON wallet nothing.
 */
const WALLET_NFTS: Record<AddressFormat, { chains?: readonly HoldingChain[]; slots: (perAddress: number) => number }> =
  {
    sui: { slots: (perAddress) => perAddress },
    evm: { chains: ['ETH', 'BASE'], slots: (perAddress) => perAddress },
    solana: { chains: ['SOL'], slots: (perAddress) => perAddress },
    bitcoin: { chains: ['BTC'], slots: (perAddress) => Math.min(1, perAddress) },
    ton: { chains: ['TON'], slots: () => 0 },
  };

const poolIndicesByChains = new Map<string, number[]>();

/** The indices of a seed's pool whose collection is on one of `chains` (memoized). */
function poolIndicesOn(seed: string, chains: readonly HoldingChain[]): number[] {
  const key = `${seed}\u0000${chains.join(',')}`;
  let indices = poolIndicesByChains.get(key);
  if (!indices) {
    indices = [];
    for (let index = 0; index < COLLECTION_POOL_SIZE; index++) {
      if (chains.includes(poolCollection(seed, index).chain)) indices.push(index);
    }
    poolIndicesByChains.set(key, indices);
  }
  return indices;
}

export function simulatedNftHoldings(
  address: string,
  worldTimeMs: number,
  seed: string = DEFAULT_SEED,
  world: Partial<SimulatorWorld> = {},
  query: NftHoldingsQuery = {},
): JsonObject[] {
  const { address: owner, format } = parseAddress(address);
  const chain = parseNftChain(query.chain ?? 'ALL');
  const { collectionsPerAddress, tokensPerCollection, epochMs } = resolveWorld(world);
  const wallet = WALLET_NFTS[format];
  // A SUI wallet draws from the whole pool; the others from their chains' collections.
  const pool = wallet.chains ? poolIndicesOn(seed, wallet.chains) : undefined;
  const epoch = epochOf(worldTimeMs, { epochMs });
  const valuedAt = valuationTime(worldTimeMs, world);
  const held = new Set<number>();
  const groups: JsonObject[] = [];
  for (let slot = 0; slot < Math.min(wallet.slots(collectionsPerAddress), pool?.length ?? Infinity); slot++) {
    const occupant = slotOccupant(`${seed}|${owner}|nft-group|${slot}`, epoch, COLLECTION_LIFETIME);
    const draw = new Draws(seed, owner, 'nft-group', slot, occupant.generation);
    let index: number;
    if (pool) {
      let at = draw.integer(0, pool.length - 1);
      while (held.has(pool[at]!)) at = (at + 1) % pool.length;
      index = pool[at]!;
    } else {
      index = draw.integer(0, COLLECTION_POOL_SIZE - 1);
      while (held.has(index)) index = (index + 1) % COLLECTION_POOL_SIZE;
    }
    held.add(index);
    const collection = poolCollection(seed, index);
    if (chain !== 'ALL' && collection.chain !== chain) continue;
    groups.push(
      holdingGroup(
        owner,
        collection,
        slot,
        epoch,
        valuedAt,
        epochMs,
        seed,
        tokensPerCollection,
        query.includePnl === true,
      ),
    );
  }
  return groups;
}

function holdingGroup(
  owner: string,
  collection: Collection,
  slot: number,
  epoch: number,
  valuedAt: number,
  epochMs: number,
  seed: string,
  tokensPerCollection: number,
  includePnl: boolean,
): JsonObject {
  const floorPrice = modelPriceAt(collection.floor, valuedAt);
  const numbers = new Set<number>();
  const tokens: JsonObject[] = [];
  let unrealized = 0;
  let turnover = 0;
  for (let k = 0; k < tokensPerCollection; k++) {
    const occupant = slotOccupant(`${seed}|${owner}|nft|${slot}|${k}`, epoch, TOKEN_LIFETIME);
    turnover += occupant.generation;
    const draws = new Draws(seed, owner, 'nft', collection.id, k, occupant.generation);
    let number = draws.integer(1, collection.totalItems);
    while (numbers.has(number)) number = (number % collection.totalItems) + 1;
    numbers.add(number);
    const rarity = new Draws(seed, 'nft-rarity', collection.id, number);
    const rarityScore = significant(rarity.between(1, 300), 6);
    const price = significant(floorPrice * (1 + rarityScore / 600), 10);
    const cost = significant(
      modelPriceAt(collection.floor, occupant.openedEpoch * epochMs) * draws.between(0.7, 1.3),
      10,
    );
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
  if (includePnl) {
    const realized = new Draws(seed, owner, 'nft-realized', collection.id, turnover).between(-2, 5) * floorPrice;
    group.profit = { realizedPnL: significant(realized, 10), unrealizedPnL: significant(unrealized, 10) };
  }
  return group;
}

/**
 * The whole NFT-holdings answer: the bare array the document describes or, for about half the
 * addresses of the real-shapes world, `{ data: [...] }` as the service's own client reads it.
 */
export function simulatedNftAnswer(
  address: string,
  worldTimeMs: number,
  seed: string = DEFAULT_SEED,
  world: Partial<SimulatorWorld> = {},
  query: NftHoldingsQuery = {},
): Json {
  const groups = simulatedNftHoldings(address, worldTimeMs, seed, world, query);
  const wrapped =
    resolveWorld(world).realShapes && hashOf(seed, normalizeAddress(address), 'nft-answer-wrapped') % 2 === 0;
  return wrapped ? { data: groups } : groups;
}
