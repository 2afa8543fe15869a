import { z } from 'zod';
import { position as positionSchema, protocolRef, type Position, type PositionsResponse } from '../upstream/schemas.ts';
import { keyProblem } from '../db/storable-text.ts';
import { snippet } from '../upstream/errors.ts';
import { readElements } from './answer-elements.ts';
import { sumDecimals } from './decimal.ts';
import { harvestPositionPrices, type HarvestContext } from './harvested-prices.ts';
import { priceWindow } from './price-plausibility.ts';
import { PricePointSet } from './price-points.ts';
import { nestedPositionKey, positionKeys } from './position-keys.ts';
import { positionWorth, type NestedList, type NestedPosition } from './position-worth.ts';
import { mergeProtocol, protocolRow } from './protocols.ts';
import { DriftLog, shapeOf } from './schema-drift.ts';
import { readTokenRef } from './token-ref.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';
import {
  extraFields,
  isPlainObject,
  mergeExtra,
  readDecimal,
  readShaped,
  readText,
  toText,
  undocumentedDecimal,
  UnreadFields,
} from './wire-fields.ts';
import type {
  ElementOutcome,
  NormalizedPositions,
  PositionAmountKind,
  PositionAmountRow,
  PositionFarmingRow,
  PositionRow,
  PositionSnapshotRow,
  ProtocolRow,
} from '../db/schema/rows.ts';

const POSITION_FIELDS = [
  'positionId',
  'owner',
  'input',
  'yieldCollected',
  'current',
  'fee',
  'chain',
  'type',
  'farming',
  'meta',
];
const CURRENT_FIELDS = ['tokens', 'yield'];
const PROTOCOL_FIELDS = Object.keys(protocolRef.shape);
const AMOUNT_FIELDS = ['amount', 'value', 'token'];
const FARMING_FIELDS = ['base_apr', 'rewards_apr', 'total_apr', 'total_apy', 'rewards'];
/** Fields that make a list entry a whole position rather than an amount entry. */
const NESTED_POSITION_FIELDS = ['positionId', 'input', 'current', 'meta'];

const metaSchema = z.looseObject({ protocol: protocolRef.nullish() });
const META_FIELDS = Object.keys(metaSchema.shape);
type Meta = z.infer<typeof metaSchema>;

interface PositionRows {
  position: PositionRow;
  snapshot: PositionSnapshotRow;
  amounts: PositionAmountRow[];
  farming: PositionFarmingRow[];
  protocol: ProtocolRow | null;
}

/**
 * Rows from a positions answer for one owner at one tick: whatever the variant, the common fields map
 * to columns and the rest goes to the snapshot's `extra`. Totals are exact sums (null when an entry
 * has no value, or `current` is absent). Positions sharing a positionId get keys of their own
 * (position-keys.ts). A position without its identity is quarantined alone; a field of another shape
 * is drift: its column null, its value kept in `extra`. A whole position inside an amount list (a
 * Borrow's collateral) becomes a child position (`<parent key>/<list>/<index>`), outside the totals.
 * The prices its token objects carry are harvested (harvested-prices.ts), `fetchedAt` being the answer's.
 */
export function normalizePositions(
  response: PositionsResponse,
  ctx: { owner: string; snapshotAt: Date; fetchedAt: Date },
): NormalizedPositions & ElementOutcome {
  const drifts = new DriftLog();
  const keys = positionKeys(response.data);
  const read: PositionRows[] = [];
  const harvested = new PricePointSet('first');
  const harvest: HarvestContext = {
    window: priceWindow({ slot: ctx.snapshotAt, fetchedAt: ctx.fetchedAt }),
    fetchedAt: ctx.fetchedAt,
    seen: new Set(),
  };
  const quarantined = readElements('positions', response.data, positionSchema, drifts, (element, own, index) => {
    const rows = readPosition(element, own, ctx, keys[index]!, null);
    const prices = harvestPositionPrices(element, own, harvest);
    return () => {
      read.push(...rows);
      for (const { price, token } of prices) harvested.addPrice(price, token);
    };
  });
  const protocols = new Map<string, ProtocolRow>();
  for (const { protocol } of read) {
    if (!protocol) continue;
    const known = protocols.get(protocol.protocolId);
    protocols.set(protocol.protocolId, known ? mergeProtocol(known, protocol) : protocol);
  }
  return {
    protocols: [...protocols.values()],
    positions: read.map((rows) => rows.position),
    snapshots: read.map((rows) => rows.snapshot),
    amounts: read.flatMap((rows) => rows.amounts),
    farming: read.flatMap((rows) => rows.farming),
    harvested: harvested.points(),
    elements: response.data.length,
    quarantined,
    drifts: drifts.list(),
  };
}

/** The rows of one position (first) and of the positions nested in its amount lists (after it). */
function readPosition(
  element: Position,
  drifts: DriftLog,
  ctx: { owner: string; snapshotAt: Date },
  positionId: string,
  parentPositionId: string | null,
): PositionRows[] {
  // A repeated id's suffix or a nested position's path may take a key past what it can hold.
  const keyTrouble = keyProblem(positionId);
  if (keyTrouble) throw new UnreadablePayloadError(`position key is ${keyTrouble}${snippet(positionId, 80)}`);
  const unread = new UnreadFields();
  const nested: PositionRows[] = [];
  const held: NestedPosition[] = [];
  const readNested = (child: Position, list: NestedList, idx: number) => {
    const rows = readPosition(child, drifts, ctx, nestedPositionKey(positionId, list, idx), positionId);
    const { currentValue, currentYieldValue } = rows[0]!.snapshot;
    held.push({ list, currentValue, currentYieldValue });
    nested.push(...rows);
  };
  const owner = unread.keep('owner', readText(element.owner, 'positions.owner', drifts));
  const fee = unread.keep('fee', readDecimal(element.fee, 'positions.fee', drifts));
  const meta = unread.keep('meta', readShaped(element.meta, metaSchema, 'positions.meta', drifts));
  const protocol = protocolOf(meta, drifts, unread);

  const amounts: PositionAmountRow[] = [];
  const readAmounts = (kind: PositionAmountKind, raw: unknown, list: NestedList, into: UnreadFields, name: string) => {
    const field = `positions.${list}`;
    readList(raw, field, drifts, into, name, (entry, idx) => {
      if (isPlainObject(entry) && !NESTED_POSITION_FIELDS.some((key) => key in entry)) {
        amounts.push({ positionId, kind, idx, ...amountEntry(entry, field, drifts) });
        return true;
      }
      // A whole position in the list (a Borrow's collateral), or anything else that is no amount entry: drift.
      drifts.record(field, isPlainObject(entry) ? 'position' : shapeOf(entry));
      const child = positionSchema.safeParse(entry);
      if (child.success) readNested(child.data, list, idx);
      return child.success;
    });
  };
  readAmounts('input', element.input, 'input', unread, 'input');
  readAmounts('yield_collected', element.yieldCollected, 'yieldCollected', unread, 'yieldCollected');

  const current = element.current;
  const currentUnread = new UnreadFields();
  const hasCurrent = isPlainObject(current);
  if (hasCurrent) {
    readAmounts('current_token', current.tokens, 'current.tokens', currentUnread, 'tokens');
    readAmounts('current_yield', current.yield, 'current.yield', currentUnread, 'yield');
  } else if (current !== null && current !== undefined) {
    drifts.record('positions.current', shapeOf(current));
    unread.fields.current = current;
  }
  const farming = farmingRows(positionId, element.farming, drifts, unread);

  const total = (kind: PositionAmountKind) =>
    sumDecimals(amounts.filter((row) => row.kind === kind).map((row) => row.value));
  const foreignOwner = owner && owner.toLowerCase() !== ctx.owner.toLowerCase() ? { owner } : null;
  const totals = {
    inputValue: total('input'),
    yieldCollectedValue: total('yield_collected'),
    currentValue: hasCurrent ? total('current_token') : null,
    currentYieldValue: hasCurrent ? total('current_yield') : null,
  };
  const snapshot: PositionSnapshotRow = {
    owner: ctx.owner,
    positionId,
    snapshotAt: ctx.snapshotAt,
    fee,
    ...totals,
    ...positionWorth({ type: element.type, ...totals }, held),
    // Real answers carry it as `current.healthy`, some variants as `healthFactor` (both stay in `extra`).
    healthFactor:
      undocumentedDecimal(hasCurrent ? current.healthy : undefined) ?? undocumentedDecimal(element.healthFactor),
    extra: mergeExtra(
      {
        current: hasCurrent ? { ...extraFields(current, CURRENT_FIELDS), ...currentUnread.fields } : null,
        meta: mergeExtra({ protocol: extraFields(meta?.protocol, PROTOCOL_FIELDS) }, extraFields(meta, META_FIELDS)),
      },
      { ...extraFields(element, POSITION_FIELDS), ...foreignOwner, ...unread.fields },
    ),
  };
  const position: PositionRow = {
    owner: ctx.owner,
    positionId,
    upstreamPositionId: element.positionId,
    parentPositionId,
    chain: element.chain,
    type: element.type,
    protocolId: protocol?.protocolId ?? null,
    firstSeenAt: ctx.snapshotAt,
    lastSeenAt: ctx.snapshotAt,
    closedAt: null,
  };
  return [{ position, snapshot, amounts, farming, protocol }, ...nested];
}

/** The protocol a position names; an id too long to be a key is drift, and `meta` is kept in `extra`. */
function protocolOf(meta: Meta | null, drifts: DriftLog, unread: UnreadFields): ProtocolRow | null {
  const protocol = meta?.protocol;
  if (!protocol) return null;
  const id = toText(protocol.protocol ?? protocol.name)?.trim();
  if (!id) return null;
  if (keyProblem(id)) {
    drifts.record('positions.meta.protocol', 'oversized_key');
    unread.fields.meta = meta;
    return null;
  }
  return protocolRow(id, protocol);
}

/** An amount entry's token, amount and value; a field of another shape is drift, kept in its `extra`. */
function amountEntry(entry: Record<string, unknown>, field: string, drifts: DriftLog) {
  const unread = new UnreadFields();
  const amount = unread.keep('amount', readDecimal(entry.amount, `${field}.amount`, drifts));
  const value = unread.keep('value', readDecimal(entry.value, `${field}.value`, drifts));
  let token = entry.token;
  if (token !== null && token !== undefined && typeof token !== 'string' && !isPlainObject(token)) {
    drifts.record(`${field}.token`, shapeOf(token));
    unread.fields.token = token;
    token = null;
  }
  return {
    ...readTokenRef(token as string | Record<string, unknown> | null | undefined),
    amount,
    value,
    extra: mergeExtra({}, { ...extraFields(entry, AMOUNT_FIELDS), ...unread.fields }),
  };
}

function farmingRows(positionId: string, raw: unknown, drifts: DriftLog, into: UnreadFields): PositionFarmingRow[] {
  const rows: PositionFarmingRow[] = [];
  readList(raw, 'positions.farming', drifts, into, 'farming', (entry, idx) => {
    if (!isPlainObject(entry)) {
      drifts.record('positions.farming', shapeOf(entry));
      return false;
    }
    const unread = new UnreadFields();
    const apr = (name: string) => unread.keep(name, readDecimal(entry[name], `positions.farming.${name}`, drifts));
    rows.push({
      positionId,
      idx,
      baseApr: apr('base_apr'),
      rewardsApr: apr('rewards_apr'),
      totalApr: apr('total_apr'),
      totalApy: apr('total_apy'),
      rewards: entry.rewards ?? null,
      extra: mergeExtra({}, { ...extraFields(entry, FARMING_FIELDS), ...unread.fields }),
    });
    return true;
  });
  return rows;
}

/**
 * Hands each entry of a list to `read` with its index. A list that is not a list, and the entries
 * `read` refuses (returns false), are kept in `into` under `name` (entries by index).
 */
function readList(
  raw: unknown,
  field: string,
  drifts: DriftLog,
  into: UnreadFields,
  name: string,
  read: (entry: unknown, idx: number) => boolean,
): void {
  if (raw === null || raw === undefined) return;
  if (!Array.isArray(raw)) {
    drifts.record(field, shapeOf(raw));
    into.fields[name] = raw;
    return;
  }
  const refused: Record<number, unknown> = {};
  raw.forEach((entry: unknown, idx) => {
    if (!read(entry, idx)) refused[idx] = entry;
  });
  if (Object.keys(refused).length > 0) into.fields[name] = refused;
}
