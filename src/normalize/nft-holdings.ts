import type { NftHoldingGroup, NftHoldingsResponse, NftToken } from '../upstream/schemas.js';
import { toDecimalString } from './decimal.js';
import { extraFields, mergeExtra } from './extra-fields.js';
import { toInteger, toText } from './integer.js';
import type { NftCollectionRow, NftHoldingSnapshotRow, NftTokenRow, NormalizedNftHoldings } from './rows.js';

const GROUP_FIELDS = ['owner', 'nativeToken', 'collection', 'collectionId', 'tokens', 'floorPrice', 'marketPrice', 'profit'];
const COLLECTION_FIELDS = ['description', 'externalUrl', 'id', 'imageUrl', 'name', 'totalItems', 'chain', 'verified', 'scam'];
const NATIVE_TOKEN_FIELDS = ['name', 'cmcId', 'cmc_slug', 'cgId', 'symbol', 'decimals'];
const TOKEN_FIELDS = ['royalty', 'imageUrl', 'tokenId', 'contractAddress', 'name', 'rarityScore', 'rank', 'price', 'cost'];
const PROFIT_FIELDS = ['realizedPnL', 'unrealizedPnL'];

/**
 * Rows from an NFT-holdings answer for one owner at one tick: the collections, one holding snapshot
 * per collection, and the tokens held. `profit` absent (PnL not requested) gives null PnL, never
 * zero. Chains are upper-case, as in the upstream's chain list. A repeated collection replaces the
 * earlier group; a repeated token id within a collection replaces the earlier token.
 */
export function normalizeNftHoldings(response: NftHoldingsResponse, ctx: { owner: string; snapshotAt: Date }): NormalizedNftHoldings {
  const groups = new Map<string, NftHoldingGroup>();
  for (const group of response) groups.set(group.collectionId, group);
  const result: NormalizedNftHoldings = { collections: [], holdings: [], tokens: [] };
  for (const group of groups.values()) {
    const chain = group.collection?.chain?.trim().toUpperCase() || null;
    const tokens = new Map<string, NftToken>();
    for (const token of group.tokens) tokens.set(token.tokenId, token);
    result.collections.push(collectionRow(group, chain, ctx.snapshotAt));
    result.holdings.push(holdingRow(group, chain, tokens.size, ctx));
    for (const token of tokens.values()) result.tokens.push(tokenRow(group.collectionId, token, chain, ctx));
  }
  return result;
}

function collectionRow(group: NftHoldingGroup, chain: string | null, snapshotAt: Date): NftCollectionRow {
  const collection = group.collection;
  const native = group.nativeToken;
  const collectionExtra = extraFields(collection, COLLECTION_FIELDS);
  const otherId = collection?.id !== undefined && collection.id !== null && String(collection.id) !== group.collectionId ? { id: collection.id } : null;
  return {
    collectionId: group.collectionId,
    chain,
    name: collection?.name ?? null,
    description: collection?.description ?? null,
    externalUrl: collection?.externalUrl ?? null,
    imageUrl: collection?.imageUrl ?? null,
    totalItems: toInteger(collection?.totalItems, 'totalItems'),
    verified: collection?.verified ?? null,
    scam: collection?.scam ?? null,
    nativeTokenName: native?.name ?? null,
    nativeTokenSymbol: native?.symbol ?? null,
    nativeTokenDecimals: toInteger(native?.decimals, 'nativeToken.decimals'),
    nativeTokenCmcId: toText(native?.cmcId),
    nativeTokenCmcSlug: native?.cmc_slug ?? null,
    nativeTokenCgId: native?.cgId ?? null,
    extra: mergeExtra({ nativeToken: extraFields(native, NATIVE_TOKEN_FIELDS) }, { ...collectionExtra, ...otherId }),
    firstSeenAt: snapshotAt,
    lastSeenAt: snapshotAt,
  };
}

function holdingRow(group: NftHoldingGroup, chain: string | null, tokenCount: number, ctx: { owner: string; snapshotAt: Date }): NftHoldingSnapshotRow {
  const foreignOwner = group.owner && group.owner.toLowerCase() !== ctx.owner.toLowerCase() ? { owner: group.owner } : null;
  return {
    owner: ctx.owner,
    collectionId: group.collectionId,
    snapshotAt: ctx.snapshotAt,
    chain,
    tokenCount,
    floorPrice: toDecimalString(group.floorPrice),
    marketPrice: toDecimalString(group.marketPrice),
    realizedPnl: toDecimalString(group.profit?.realizedPnL),
    unrealizedPnl: toDecimalString(group.profit?.unrealizedPnL),
    extra: mergeExtra({ profit: extraFields(group.profit, PROFIT_FIELDS) }, { ...extraFields(group, GROUP_FIELDS), ...foreignOwner }),
  };
}

function tokenRow(collectionId: string, token: NftToken, chain: string | null, ctx: { owner: string; snapshotAt: Date }): NftTokenRow {
  return {
    owner: ctx.owner,
    collectionId,
    tokenId: token.tokenId,
    chain,
    contractAddress: token.contractAddress ?? null,
    name: token.name ?? null,
    imageUrl: token.imageUrl ?? null,
    rank: toText(token.rank),
    rarityScore: toDecimalString(token.rarityScore),
    royalty: toDecimalString(token.royalty),
    price: toDecimalString(token.price),
    cost: toDecimalString(token.cost),
    extra: extraFields(token, TOKEN_FIELDS),
    firstSeenAt: ctx.snapshotAt,
    lastSeenAt: ctx.snapshotAt,
    releasedAt: null,
  };
}
