import type { NormalizedPositions, PositionAmountKind, PositionAmountRow } from '../schema/rows.ts';
import { jsonDelta } from '../json-delta.ts';
import type { KnownPositionToken } from './position-tokens.ts';

/** A row of position_snapshot_points as the JSON object the writer sends. */
export type SnapshotPoint = ReturnType<typeof snapshotPoints>[number];

/** The enum's order: the order amount entries are stored in (the views derive `idx` from it). */
const KIND_ORDER: readonly PositionAmountKind[] = ['input', 'yield_collected', 'current_token', 'current_yield'];

/**
 * The stored form of each snapshot (see position_snapshot_points): entries as parallel arrays, each
 * entry's token as its position_tokens id (`tokenOf`), `extra` and token objects as their jsonDelta
 * from positions.snapshot_extra (`snapshotExtraOf`) and position_tokens.info. Pure.
 */
export function snapshotPoints(
  normalized: NormalizedPositions,
  tokenOf: ReadonlyMap<PositionAmountRow, KnownPositionToken>,
  snapshotExtraOf: ReadonlyMap<string, Record<string, unknown>>,
) {
  const amountsOf = Map.groupBy(normalized.amounts, (entry) => entry.positionId);
  const farmingOf = Map.groupBy(normalized.farming, (entry) => entry.positionId);
  return normalized.snapshots.map((snapshot) => {
    const amounts = (amountsOf.get(snapshot.positionId) ?? []).sort(byKindThenIdx);
    const farming = (farmingOf.get(snapshot.positionId) ?? []).sort((a, b) => a.idx - b.idx);
    // resolvePositionTokens resolved every entry of `normalized.amounts` (it throws otherwise).
    const amountTokens = amounts.map((entry) => tokenOf.get(entry)!);
    return {
      position_id: snapshot.positionId,
      fee: snapshot.fee,
      input_value: snapshot.inputValue,
      yield_collected_value: snapshot.yieldCollectedValue,
      current_value: snapshot.currentValue,
      current_yield_value: snapshot.currentYieldValue,
      asset_value: snapshot.assetValue,
      debt_value: snapshot.debtValue,
      net_value: snapshot.netValue,
      pnl: snapshot.pnl,
      health_factor: snapshot.healthFactor,
      extra: jsonDelta(snapshotExtraOf.get(snapshot.positionId) ?? null, snapshot.extra),
      amount_kinds: list(amounts, (entry) => entry.kind),
      amount_tokens: list(amountTokens, (token) => token.id),
      amount_token_info: sparse(amounts, (entry, i) => jsonDelta(amountTokens[i]!.info, entry.tokenInfo)),
      amounts: list(amounts, (entry) => entry.amount),
      amount_values: list(amounts, (entry) => entry.value),
      amount_extras: sparse(amounts, (entry) => entry.extra),
      farming_base_apr: list(farming, (entry) => entry.baseApr),
      farming_rewards_apr: list(farming, (entry) => entry.rewardsApr),
      farming_total_apr: list(farming, (entry) => entry.totalApr),
      farming_total_apy: list(farming, (entry) => entry.totalApy),
      farming_rewards: sparse(farming, (entry) => entry.rewards),
      farming_extras: sparse(farming, (entry) => entry.extra),
    };
  });
}

/** One value per entry; null for no entries. */
function list<T, V>(entries: T[], value: (entry: T) => V): V[] | null {
  return entries.length === 0 ? null : entries.map(value);
}

/** One value per entry; null when every value is null (nothing to store). */
function sparse<T, V>(entries: T[], value: (entry: T, i: number) => V | null): (V | null)[] | null {
  const values = entries.map((entry, i) => value(entry, i) ?? null);
  return values.some((entry) => entry !== null) ? values : null;
}

function byKindThenIdx(a: PositionAmountRow, b: PositionAmountRow): number {
  return KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.idx - b.idx;
}
