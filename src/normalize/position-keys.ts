import { createHash } from 'node:crypto';
import { cutJson } from '../db/storable-text.ts';
import { position as positionSchema } from '../upstream/schemas.ts';
import { DriftLog } from './schema-drift.ts';
import { readTokenRef } from './token-ref.ts';
import { isPlainObject, readDecimal } from './wire-fields.ts';

/** Fields of a position that name where it sits in a pool: they stay the same for its whole life. */
const PLACE_FIELDS = ['poolId', 'pool', 'tickLower', 'tickUpper', 'lowerTick', 'upperTick', 'priceLower', 'priceUpper'];

/**
 * The row key of each element of a positions answer (null without a readable identity): its
 * positionId when unique in the answer, else `<positionId>#<fingerprint>`, 12 hex digits of the
 * sha256 of what stays the same from tick to tick (chain, type, protocol, `input`'s tokens and
 * amounts, pool and tick range), so that the key does not depend on the answer's order. Positions
 * equal even in that are told apart by order (`-2`, `-3`, …): nothing else distinguishes them.
 */
export function positionKeys(elements: readonly unknown[]): (string | null)[] {
  const ids = elements.map((element) => {
    const parsed = positionSchema.safeParse(element);
    return parsed.success ? parsed.data.positionId : null;
  });
  const counts = new Map<string, number>();
  for (const id of ids) if (id !== null) counts.set(id, (counts.get(id) ?? 0) + 1);

  const keys = ids.map((id) => (id !== null && counts.get(id) === 1 ? id : null));
  const repeated = ids
    .map((id, index) => ({ id, index }))
    .filter((entry): entry is { id: string; index: number } => entry.id !== null && counts.get(entry.id)! > 1)
    .map((entry) => ({ ...entry, fingerprint: fingerprint(elements[entry.index] as Record<string, unknown>) }))
    .sort((a, b) => a.id.localeCompare(b.id) || a.fingerprint.localeCompare(b.fingerprint) || a.index - b.index);
  const taken = new Map<string, number>();
  for (const entry of repeated) {
    const base = `${entry.id}#${entry.fingerprint}`;
    const seen = (taken.get(base) ?? 0) + 1;
    taken.set(base, seen);
    keys[entry.index] = seen === 1 ? base : `${base}-${seen}`;
  }
  return keys;
}

/** The key of a position nested in an amount list of its parent (a Borrow's collateral in `input`). */
export function nestedPositionKey(parentKey: string, list: string, idx: number): string {
  return `${parentKey}/${list}/${idx}`;
}

function fingerprint(element: Record<string, unknown>): string {
  const meta = isPlainObject(element.meta) ? element.meta : null;
  const protocol = meta && isPlainObject(meta.protocol) ? (meta.protocol.protocol ?? meta.protocol.name) : null;
  const place = PLACE_FIELDS.filter((field) => element[field] !== undefined).map((field) => [field, element[field]]);
  const stable = [element.chain, element.type, protocol ?? null, inputOf(element.input), place];
  // Cut where it nests too deep to stringify (such an element is quarantined, but its key comes first).
  return createHash('sha256')
    .update(JSON.stringify(cutJson(stable)))
    .digest('hex')
    .slice(0, 12);
}

/** Token and amount of each `input` entry (values move with prices; these do not). */
function inputOf(input: unknown): unknown {
  if (!Array.isArray(input)) return input ?? null;
  const ignored = new DriftLog();
  return input.map((entry: unknown) => {
    if (!isPlainObject(entry)) return entry;
    const token = entry.token;
    const tokenId =
      typeof token === 'string' || isPlainObject(token)
        ? readTokenRef(token as string | Record<string, unknown>).token
        : null;
    return [tokenId, readDecimal(entry.amount, '', ignored).value, entry.positionId ?? null];
  });
}
