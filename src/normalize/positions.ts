import type { AmountEntry, FarmingEntry, Position, PositionsResponse } from '../upstream/schemas.js';
import { sumDecimals, toDecimalString } from './decimal.js';
import { extraFields, mergeExtra } from './extra-fields.js';
import { toText } from './integer.js';
import { mergeProtocol, protocolRow } from './protocols.js';
import type {
  NormalizedPositions, PositionAmountKind, PositionAmountRow, PositionFarmingRow, PositionRow, PositionSnapshotRow, ProtocolRow,
} from './rows.js';
import { readTokenRef } from './token-ref.js';

const POSITION_FIELDS = ['positionId', 'owner', 'input', 'yieldCollected', 'current', 'fee', 'chain', 'type', 'farming', 'meta'];
const CURRENT_FIELDS = ['tokens', 'yield'];
const META_FIELDS = ['protocol'];
const PROTOCOL_FIELDS = ['name', 'logo', 'url', 'protocol'];
const AMOUNT_FIELDS = ['amount', 'value', 'token'];
const FARMING_FIELDS = ['base_apr', 'rewards_apr', 'total_apr', 'total_apy', 'rewards'];

/**
 * Rows from a positions answer for one owner at one tick. Whatever variant a position is, the
 * common fields map to columns and the rest goes to the snapshot's `extra`. Value totals are exact
 * sums (null when an entry has no value; current totals null when `current` is absent). A
 * repeated positionId replaces the earlier one.
 */
export function normalizePositions(response: PositionsResponse, ctx: { owner: string; snapshotAt: Date }): NormalizedPositions {
  const byId = new Map<string, Position>();
  for (const position of response.data) byId.set(position.positionId, position);
  const protocols = new Map<string, ProtocolRow>();
  const result: NormalizedPositions = { protocols: [], positions: [], snapshots: [], amounts: [], farming: [] };
  for (const position of byId.values()) {
    const protocol = protocolOf(position);
    if (protocol) {
      const known = protocols.get(protocol.protocolId);
      protocols.set(protocol.protocolId, known ? mergeProtocol(known, protocol) : protocol);
    }
    result.positions.push(positionRow(position, protocol?.protocolId ?? null, ctx));
    const amounts = amountRows(position);
    result.snapshots.push(snapshotRow(position, amounts, ctx));
    result.amounts.push(...amounts);
    result.farming.push(...position.farming.map((entry, idx) => farmingRow(position.positionId, entry, idx)));
  }
  result.protocols = [...protocols.values()];
  return result;
}

function protocolOf(position: Position): ProtocolRow | null {
  const protocol = position.meta?.protocol;
  if (!protocol) return null;
  const id = toText(protocol.protocol ?? protocol.name)?.trim();
  return id ? protocolRow(id, protocol) : null;
}

function positionRow(position: Position, protocolId: string | null, ctx: { owner: string; snapshotAt: Date }): PositionRow {
  return {
    owner: ctx.owner,
    positionId: position.positionId,
    chain: position.chain,
    type: position.type,
    protocolId,
    firstSeenAt: ctx.snapshotAt,
    lastSeenAt: ctx.snapshotAt,
    closedAt: null,
  };
}

function amountRows(position: Position): PositionAmountRow[] {
  const lists: [PositionAmountKind, AmountEntry[]][] = [
    ['input', position.input],
    ['yield_collected', position.yieldCollected],
    ['current_token', position.current?.tokens ?? []],
    ['current_yield', position.current?.yield ?? []],
  ];
  return lists.flatMap(([kind, entries]) => entries.map((entry, idx) => ({
    positionId: position.positionId,
    kind,
    idx,
    ...readTokenRef(entry.token),
    amount: toDecimalString(entry.amount),
    value: toDecimalString(entry.value),
    extra: extraFields(entry, AMOUNT_FIELDS),
  })));
}

function snapshotRow(position: Position, amounts: PositionAmountRow[], ctx: { owner: string; snapshotAt: Date }): PositionSnapshotRow {
  const total = (kind: PositionAmountKind) => sumDecimals(amounts.filter((row) => row.kind === kind).map((row) => row.value));
  const hasCurrent = position.current !== null && position.current !== undefined;
  const protocol = position.meta?.protocol;
  const foreignOwner = position.owner && position.owner.toLowerCase() !== ctx.owner.toLowerCase() ? { owner: position.owner } : null;
  return {
    owner: ctx.owner,
    positionId: position.positionId,
    snapshotAt: ctx.snapshotAt,
    fee: toDecimalString(position.fee),
    inputValue: total('input'),
    yieldCollectedValue: total('yield_collected'),
    currentValue: hasCurrent ? total('current_token') : null,
    currentYieldValue: hasCurrent ? total('current_yield') : null,
    extra: mergeExtra(
      {
        current: extraFields(position.current, CURRENT_FIELDS),
        meta: mergeExtra({ protocol: extraFields(protocol, PROTOCOL_FIELDS) }, extraFields(position.meta, META_FIELDS)),
      },
      { ...extraFields(position, POSITION_FIELDS), ...foreignOwner },
    ),
  };
}

function farmingRow(positionId: string, entry: FarmingEntry, idx: number): PositionFarmingRow {
  return {
    positionId,
    idx,
    baseApr: toDecimalString(entry.base_apr),
    rewardsApr: toDecimalString(entry.rewards_apr),
    totalApr: toDecimalString(entry.total_apr),
    totalApy: toDecimalString(entry.total_apy),
    rewards: entry.rewards ?? null,
    extra: extraFields(entry, FARMING_FIELDS),
  };
}
