import { readChainName, SUI_CHAIN } from '../chain/chain-name.ts';
import { tokenId } from '../chain/token-id.ts';
import { normalizeCoinType } from '../chain/coin-type.ts';
import { keyProblem } from '../db/storable-text.ts';
import type { PriceRow, TokenRow } from '../db/schema/rows.ts';
import { priceTimeProblem, priceValueProblem, type PriceWindow } from './price-plausibility.ts';
import { readPrice24hAgo, readPriceSource } from './price-points.ts';
import type { DriftLog } from './schema-drift.ts';
import { toTimestamp } from './timestamp.ts';
import { tokenObjectId } from './token-ref.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';
import { isPlainObject, readDecimal } from './wire-fields.ts';

/**
 * The prices other answers carry for free (upstream-reality.md, "Prices inside other answers"): each
 * priced token object of a positions answer, and each NFT group's native-token price, as price points
 * of the token on its chain, through the same plausibility rules as a price answer. A price that
 * cannot be true is no point and counts as drift `implausible` (the position or group is stored as
 * ever: a field's value never costs its element). Pure.
 */

export interface HarvestContext {
  /** price-plausibility.ts's priceWindow of the refresh: its tick and its fetch. */
  window: PriceWindow;
  fetchedAt: Date;
  /**
   * The token objects already read in this answer, by chain, token and `timestamp` as carried: one
   * repeating them (the same token in input, current and yield) is not read again, as the first
   * one's price is kept; most token objects of a positions answer are such repeats.
   */
  seen: Set<string>;
}

/** A price point and the token it is of, for a PricePointSet. */
export interface HarvestedPrice {
  price: PriceRow;
  token: TokenRow;
}

/** The lists of a position whose entries hold token objects, or whole positions nested in them. */
const AMOUNT_LISTS = ['input', 'yieldCollected'] as const;
const CURRENT_LISTS = ['tokens', 'yield'] as const;

/**
 * Every priced token object of one position of a positions answer, nested positions and farming
 * rewards included. A token object is priced when it has a `price` and a `timestamp` (Unix time) and
 * names its token (`contract_address`, `address`, `coinType`, …, token-ref.ts); its chain is its own
 * `chain`, else its position's.
 */
export function harvestPositionPrices(
  position: Record<string, unknown>,
  drifts: DriftLog,
  ctx: HarvestContext,
): HarvestedPrice[] {
  const found: HarvestedPrice[] = [];
  const visit = (holder: Record<string, unknown>, chainLabel: unknown) => {
    const chain = typeof holder.chain === 'string' ? holder.chain : chainLabel;
    const current = isPlainObject(holder.current) ? holder.current : {};
    const lists = [
      ...AMOUNT_LISTS.map((name) => holder[name]),
      ...CURRENT_LISTS.map((name) => current[name]),
      ...(Array.isArray(holder.farming)
        ? holder.farming.map((farm) => (isPlainObject(farm) ? farm.rewards : null))
        : []),
    ];
    for (const list of lists) {
      if (!Array.isArray(list)) continue;
      for (const entry of list) {
        if (!isPlainObject(entry)) continue;
        if (isPlainObject(entry.token)) {
          const harvested = tokenObjectPrice(entry.token, chain, drifts, ctx);
          if (harvested) found.push(harvested);
        } else if ('input' in entry || 'current' in entry) visit(entry, chain);
      }
    }
  };
  visit(position, position.chain);
  return found;
}

/** The price point of one token object; null when it carries none, or one that cannot be true. */
function tokenObjectPrice(
  token: Record<string, unknown>,
  positionChain: unknown,
  drifts: DriftLog,
  ctx: HarvestContext,
): HarvestedPrice | null {
  if (token.price === null || token.price === undefined || token.timestamp === undefined) return null;
  const givenId = tokenObjectId(token);
  if (givenId === undefined) return null;
  const chainLabel = typeof token.chain === 'string' ? token.chain : positionChain;
  const seenKey = `${String(chainLabel)}\u0000${givenId}\u0000${String(token.timestamp)}`;
  if (ctx.seen.has(seenKey)) return null;
  ctx.seen.add(seenKey);
  const id = tokenId(givenId);
  const chain = chainOf(token.chain) ?? chainOf(positionChain);
  if (id === null || chain === undefined) return null;
  if (keyProblem(id)) {
    drifts.record('positions.token', 'oversized_key');
    return null;
  }
  const price = readDecimal(token.price, 'positions.token.price', drifts).value;
  const time = readTime(token.timestamp, 'positions.token.timestamp', drifts);
  if (price === null || time === null) return null;
  const fields = { price: 'positions.token.price', time: 'positions.token.timestamp' };
  if (!plausible(price, time, fields, drifts, ctx.window)) return null;
  const symbol = typeof token.symbol === 'string' ? token.symbol : null;
  const decimals = Number.isSafeInteger(token.decimals) ? (token.decimals as number) : null;
  return {
    price: {
      coinType: id,
      chain,
      priceTime: time,
      price,
      price24hAgo: readPrice24hAgo(token.last24hPrice, 'positions.token.last24hPrice', drifts),
      source: readPriceSource(token.source, 'positions.token.source', drifts),
      fetchedAt: ctx.fetchedAt,
      origin: 'positions',
    },
    token: { coinType: id, chain, symbol, decimals, firstSeenAt: time, lastSeenAt: time, lastPriceTime: time },
  };
}

/** The token an NFT chain's native-token price is stored under: SUI's coin type on sui, `native` elsewhere. */
const SUI_COIN_TYPE = normalizeCoinType('0x2::sui::SUI');
const NATIVE_TOKEN = 'native';

/**
 * An NFT group's `marketPrice` (the USD price of its chain's native token) as a price point of that
 * token at the refresh's tick: the group has no timestamp, and its holding snapshot is stored at the
 * tick. `marketPrice` is the holding row's (read once, its drift counted there).
 */
export function harvestNftPrice(
  group: { chain: string | null; marketPrice: string | null; symbol: string | null; decimals: number | null },
  tick: Date,
  drifts: DriftLog,
  ctx: Pick<HarvestContext, 'window' | 'fetchedAt'>,
): HarvestedPrice | null {
  const chain = group.chain === null ? undefined : readChainName(group.chain);
  if (group.marketPrice === null || chain === undefined) return null;
  const fields = { price: 'nfts.marketPrice', time: 'nfts.marketPrice' };
  if (!plausible(group.marketPrice, tick, fields, drifts, ctx.window)) return null;
  const coinType = chain === SUI_CHAIN ? SUI_COIN_TYPE : NATIVE_TOKEN;
  const { symbol, decimals } = group;
  return {
    price: {
      coinType,
      chain,
      priceTime: tick,
      price: group.marketPrice,
      price24hAgo: null,
      source: null,
      fetchedAt: ctx.fetchedAt,
      origin: 'nfts',
    },
    token: { coinType, chain, symbol, decimals, firstSeenAt: tick, lastSeenAt: tick, lastPriceTime: tick },
  };
}

function chainOf(label: unknown): string | undefined {
  return typeof label === 'string' ? readChainName(label) : undefined;
}

/** A token object's Unix time; one that is no time (or none a price could have) is drift `implausible`. */
function readTime(raw: unknown, field: string, drifts: DriftLog): Date | null {
  const value = readDecimal(raw, field, drifts).value;
  if (value === null) return null;
  try {
    return toTimestamp(value);
  } catch (error) {
    if (!(error instanceof UnreadablePayloadError)) throw error;
    drifts.record(field, 'implausible');
    return null;
  }
}

/** price-plausibility.ts's verdict; a refusal is drift `implausible` of the field that holds the price or the time. */
function plausible(
  price: string,
  time: Date,
  fields: { price: string; time: string },
  drifts: DriftLog,
  window: PriceWindow,
): boolean {
  const field = priceValueProblem(price) ? fields.price : priceTimeProblem(time, window) ? fields.time : undefined;
  if (field) drifts.record(field, 'implausible');
  return field === undefined;
}
