import { createHash } from 'node:crypto';

/**
 * What counts as a change of a target (docs/quota.md, "What counts as a change"): the substance of an
 * answer, as a small JSON value, and the rule comparing two. Values, prices and yields move on every
 * answer and are left out. Pure.
 *
 * Positions: per position id, its measure per token:
 * - the `input` amounts (what was put in: they move only on a deposit or a withdrawal), summed per token;
 * - without input amounts, the current token amounts: one token as it is; two or more (a pool) as
 *   their geometric mean, which a constant-product pool keeps while its price moves (x·y = L²), so
 *   that a pool's price swinging its amounts is not a change, and a deposit or withdrawal is. A pool
 *   of another curve (concentrated liquidity out of range, stable swaps) is not constant-product:
 *   there a large price move may read as a change (documented).
 * NFT holdings: per collection, the count and a digest of the token ids.
 */
export type Substance = PositionsSubstance | NftSubstance;
/** Position id -> measure name (`in:<token>`, `now:<token>`, `pool`) -> amount. */
export type PositionsSubstance = { positions: Record<string, Record<string, number>> };
/** Collection id -> [token count, digest of the sorted token ids]. */
export type NftSubstance = { collections: Record<string, [number, string]> };

/** A measure moving by more than this share of the larger value is a change; below, rounding and accrual. */
const CHANGE_TOLERANCE = 0.02;

/** What the change rule reads of positions: an answer's rows (NormalizedPositions), or stored ones. */
export interface PositionsContent {
  positions: { positionId: string }[];
  amounts: {
    positionId: string;
    kind: string;
    idx: number;
    token: string | null;
    tokenSymbol: string | null;
    amount: string | null;
  }[];
}

/** What the change rule reads of NFT holdings. */
export interface NftContent {
  holdings: { collectionId: string; tokenCount: number }[];
  tokens: { collectionId: string; tokenId: string }[];
}

export function positionsSubstance(rows: PositionsContent): PositionsSubstance {
  const positions: Record<string, Record<string, number>> = {};
  for (const position of rows.positions) positions[position.positionId] = {};
  const inputs = new Map<string, Map<string, number>>();
  const current = new Map<string, Map<string, number>>();
  for (const entry of rows.amounts) {
    const by = entry.kind === 'input' ? inputs : entry.kind === 'current_token' ? current : undefined;
    const amount = entry.amount === null ? NaN : Math.abs(Number(entry.amount));
    if (!by || !Number.isFinite(amount)) continue;
    const tokens = by.get(entry.positionId) ?? new Map<string, number>();
    const token = entry.token ?? entry.tokenSymbol ?? `#${entry.idx}`;
    tokens.set(token, (tokens.get(token) ?? 0) + amount);
    by.set(entry.positionId, tokens);
  }
  for (const id of Object.keys(positions)) {
    const measures: Record<string, number> = {};
    const input = inputs.get(id);
    const now = current.get(id);
    if (input) for (const [token, amount] of input) measures[`in:${token}`] = amount;
    else if (now && now.size === 1) for (const [token, amount] of now) measures[`now:${token}`] = amount;
    else if (now && now.size > 1) measures.pool = geometricMean([...now.values()]);
    positions[id] = measures;
  }
  return { positions };
}

export function nftSubstance(rows: NftContent): NftSubstance {
  const ids = Map.groupBy(rows.tokens, (token) => token.collectionId);
  const collections: Record<string, [number, string]> = {};
  for (const holding of rows.holdings) {
    const tokenIds = (ids.get(holding.collectionId) ?? []).map((token) => token.tokenId).sort();
    const digest = createHash('sha256').update(tokenIds.join('\n')).digest('base64url').slice(0, 12);
    collections[holding.collectionId] = [holding.tokenCount, digest];
  }
  return { collections };
}

/**
 * How many changes `next` shows against `previous`: the fewest events that explain the difference.
 * Something that appeared or went, or a measure that moved, is one; a position (or collection) that
 * went and another that appeared may be one move, so appeared and gone count as the larger of the
 * two. 0: no change in substance. The estimator reads the count (change-rate.ts): a burst of changes
 * between two refreshes says more than that something changed.
 */
export function changeCount(previous: Substance, next: Substance): number {
  if ('positions' in previous && 'positions' in next) {
    return differences(previous.positions, next.positions, (a, b) => differences(a, b, moved) > 0);
  }
  if ('collections' in previous && 'collections' in next) {
    return differences(
      previous.collections,
      next.collections,
      ([countA, digestA], [countB, digestB]) => countA !== countB || digestA !== digestB,
    );
  }
  return 1;
}

function differences<T>(a: Record<string, T>, b: Record<string, T>, differs: (x: T, y: T) => boolean): number {
  let gone = 0;
  let changed = 0;
  for (const key of Object.keys(a)) {
    if (!(key in b)) gone += 1;
    else if (differs(a[key]!, b[key]!)) changed += 1;
  }
  const appeared = Object.keys(b).length - (Object.keys(a).length - gone);
  return Math.max(gone, appeared) + changed;
}

function moved(a: number, b: number): boolean {
  return Math.abs(a - b) > CHANGE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

function geometricMean(values: number[]): number {
  if (values.some((value) => value <= 0)) return 0;
  return Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length);
}
