import { z } from 'zod';
import {
  nativeToken as nativeTokenSchema,
  nftCollection as nftCollectionSchema,
  nftHoldingGroup,
  nftToken,
  type NftHoldingGroup,
  type NftHoldingsResponse,
  type NftToken,
} from '../upstream/schemas.ts';
import { readElements } from './answer-elements.ts';
import { harvestNftPrice, type HarvestedPrice } from './harvested-prices.ts';
import { priceWindow } from './price-plausibility.ts';
import { PricePointSet } from './price-points.ts';
import { DriftLog } from './schema-drift.ts';
import {
  extraFields,
  mergeExtra,
  readDecimal,
  readInteger,
  readShaped,
  readText,
  toText,
  UnreadFields,
} from './wire-fields.ts';
import type {
  ElementOutcome,
  NftCollectionRow,
  NftHoldingSnapshotRow,
  NftTokenRow,
  NormalizedNftHoldings,
} from '../db/schema/rows.ts';

// Every field a schema names maps to a column: the others go to `extra`.
const GROUP_FIELDS = Object.keys(nftHoldingGroup.shape);
const COLLECTION_FIELDS = Object.keys(nftCollectionSchema.shape);
const NATIVE_TOKEN_FIELDS = Object.keys(nativeTokenSchema.shape);
const TOKEN_FIELDS = Object.keys(nftToken.shape);
const PROFIT_FIELDS = ['realizedPnL', 'unrealizedPnL'];

const profitSchema = z.looseObject({});
type NftCollection = z.infer<typeof nftCollectionSchema>;
type Ctx = { owner: string; snapshotAt: Date; fetchedAt: Date };
/** One group being read: what every row of it needs. */
type GroupAt = { group: NftHoldingGroup; chain: string | null; drifts: DriftLog; ctx: Ctx };

/**
 * Rows from an NFT-holdings answer for one owner at one tick: collections, one holding snapshot per
 * collection, tokens held. No `profit` (PnL not asked) gives null PnL, never zero; chains are
 * upper-case; a repeated collection or token replaces the earlier. A group without its ids is
 * quarantined alone; a field of another shape is drift: its column null, its value kept in `extra`.
 * Each group's `marketPrice` is harvested as its native token's price at the tick (harvested-prices.ts).
 */
export function normalizeNftHoldings(response: NftHoldingsResponse, ctx: Ctx): NormalizedNftHoldings & ElementOutcome {
  const drifts = new DriftLog();
  const groups = new Map<string, ReturnType<typeof readGroup> & { price: HarvestedPrice | null }>();
  const harvest = { window: priceWindow({ slot: ctx.snapshotAt, fetchedAt: ctx.fetchedAt }), fetchedAt: ctx.fetchedAt };
  const quarantined = readElements('nfts', response, nftHoldingGroup, drifts, (group, own) => {
    const rows = readGroup(group, own, ctx);
    const { chain, marketPrice } = rows.holding;
    const { nativeTokenSymbol: symbol, nativeTokenDecimals: decimals } = rows.collection;
    const price = harvestNftPrice({ chain, marketPrice, symbol, decimals }, ctx.snapshotAt, own, harvest);
    return () => groups.set(group.collectionId, { ...rows, price });
  });
  const read = [...groups.values()];
  const harvested = new PricePointSet('first');
  for (const { price } of read) if (price) harvested.addPrice(price.price, price.token);
  return {
    collections: read.map((rows) => rows.collection),
    holdings: read.map((rows) => rows.holding),
    tokens: read.flatMap((rows) => rows.tokens),
    harvested: harvested.points(),
    elements: response.length,
    quarantined,
    drifts: drifts.list(),
  };
}

function readGroup(group: NftHoldingGroup, drifts: DriftLog, ctx: Ctx) {
  const collectionUnread = new UnreadFields();
  const collection = collectionUnread.keep(
    'collection',
    readShaped(group.collection, nftCollectionSchema, 'nfts.collection', drifts),
  );
  const chain = collection?.chain?.trim().toUpperCase() || null;
  const tokens = new Map<string, NftToken>();
  for (const token of group.tokens) tokens.set(token.tokenId, token);
  const at = { group, chain, drifts, ctx };
  return {
    collection: collectionRow(at, collection, collectionUnread),
    holding: holdingRow(at, tokens.size),
    tokens: [...tokens.values()].map((token) => tokenRow(at, token)),
  };
}

function collectionRow(at: GroupAt, collection: NftCollection | null, unread: UnreadFields): NftCollectionRow {
  const { group, chain, drifts, ctx } = at;
  const nativeUnread = new UnreadFields();
  const native = unread.keep(
    'nativeToken',
    readShaped(group.nativeToken, nativeTokenSchema, 'nfts.nativeToken', drifts),
  );
  const totalItems = unread.keep(
    'totalItems',
    readInteger(collection?.totalItems, 'nfts.collection.totalItems', drifts),
  );
  const decimals = nativeUnread.keep('decimals', readInteger(native?.decimals, 'nfts.nativeToken.decimals', drifts));
  const otherId =
    collection?.id !== undefined && collection.id !== null && String(collection.id) !== group.collectionId
      ? { id: collection.id }
      : null;
  return {
    collectionId: group.collectionId,
    chain,
    name: collection?.name ?? null,
    description: collection?.description ?? null,
    externalUrl: collection?.externalUrl ?? null,
    imageUrl: collection?.imageUrl ?? null,
    totalItems,
    verified: collection?.verified ?? null,
    scam: collection?.scam ?? null,
    nativeTokenName: native?.name ?? null,
    nativeTokenSymbol: native?.symbol ?? null,
    nativeTokenDecimals: decimals,
    nativeTokenCmcId: toText(native?.cmcId),
    nativeTokenCmcSlug: native?.cmc_slug ?? null,
    nativeTokenCgId: native?.cgId ?? null,
    extra: mergeExtra(
      { nativeToken: { ...extraFields(native, NATIVE_TOKEN_FIELDS), ...nativeUnread.fields } },
      { ...extraFields(collection, COLLECTION_FIELDS), ...otherId, ...unread.fields },
    ),
    firstSeenAt: ctx.snapshotAt,
    lastSeenAt: ctx.snapshotAt,
  };
}

function holdingRow({ group, chain, drifts, ctx }: GroupAt, tokenCount: number): NftHoldingSnapshotRow {
  const unread = new UnreadFields();
  const owner = unread.keep('owner', readText(group.owner, 'nfts.owner', drifts));
  const foreignOwner = owner && owner.toLowerCase() !== ctx.owner.toLowerCase() ? { owner } : null;
  const profitUnread = new UnreadFields();
  const profit = unread.keep('profit', readShaped(group.profit, profitSchema, 'nfts.profit', drifts));
  const pnl = (name: string) => profitUnread.keep(name, readDecimal(profit?.[name], `nfts.profit.${name}`, drifts));
  return {
    owner: ctx.owner,
    collectionId: group.collectionId,
    snapshotAt: ctx.snapshotAt,
    chain,
    tokenCount,
    floorPrice: unread.keep('floorPrice', readDecimal(group.floorPrice, 'nfts.floorPrice', drifts)),
    marketPrice: unread.keep('marketPrice', readDecimal(group.marketPrice, 'nfts.marketPrice', drifts)),
    realizedPnl: pnl('realizedPnL'),
    unrealizedPnl: pnl('unrealizedPnL'),
    extra: mergeExtra(
      { profit: { ...extraFields(profit, PROFIT_FIELDS), ...profitUnread.fields } },
      { ...extraFields(group, GROUP_FIELDS), ...foreignOwner, ...unread.fields },
    ),
  };
}

function tokenRow({ group, chain, drifts, ctx }: GroupAt, token: NftToken): NftTokenRow {
  const unread = new UnreadFields();
  const text = (name: string) => unread.keep(name, readText(token[name], `nfts.tokens.${name}`, drifts));
  const decimal = (name: string) => unread.keep(name, readDecimal(token[name], `nfts.tokens.${name}`, drifts));
  const rank = token.rank;
  const rankText = typeof rank === 'string' || typeof rank === 'number' ? toText(rank) : text('rank');
  return {
    owner: ctx.owner,
    collectionId: group.collectionId,
    tokenId: token.tokenId,
    chain,
    contractAddress: text('contractAddress'),
    name: text('name'),
    imageUrl: text('imageUrl'),
    rank: rankText,
    rarityScore: decimal('rarityScore'),
    royalty: decimal('royalty'),
    price: decimal('price'),
    cost: decimal('cost'),
    extra: mergeExtra({}, { ...extraFields(token, TOKEN_FIELDS), ...unread.fields }),
    firstSeenAt: ctx.snapshotAt,
    lastSeenAt: ctx.snapshotAt,
    releasedAt: null,
  };
}
