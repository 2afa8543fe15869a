import type { AddressDataset } from '../../datasets.ts';
import type { Database } from '../client.ts';
import { runSql } from '../query.ts';
import type { refreshTargets } from '../schema/index.ts';
import type { Tx } from '../transaction.ts';

/** A refresh_targets row (src/refresh/lifecycle.ts owns what goes in it). */
export type RefreshTargetRow = typeof refreshTargets.$inferSelect;

/** The target's row, locked until the job's transaction ends (two refreshes of one target take turns). */
export async function lockRefreshTarget(
  tx: Tx,
  dataset: AddressDataset,
  target: string,
): Promise<RefreshTargetRow | undefined> {
  const [row] = await tx.sql<RefreshTargetRow[]>`
    select dataset, target, last_tick as "lastTick", substance, observations, evidence,
           change_rate_per_hour as "changeRatePerHour", changed_at as "changedAt", compared, changes
    from refresh_targets where dataset = ${dataset} and target = ${target}
    for update`;
  return row;
}

export async function saveRefreshTarget(tx: Tx, row: RefreshTargetRow): Promise<void> {
  await tx.sql`
    insert into refresh_targets (dataset, target, last_tick, substance, observations, evidence, change_rate_per_hour,
                                 changed_at, compared, changes)
    values (${row.dataset}, ${row.target}, ${row.lastTick},
            ${row.substance === null ? null : JSON.stringify(row.substance)}::jsonb,
            ${JSON.stringify(row.observations)}::jsonb, ${JSON.stringify(row.evidence)}::jsonb, ${row.changeRatePerHour}, ${row.changedAt}, ${row.compared},
            ${row.changes})
    on conflict (dataset, target) do update set
      last_tick = excluded.last_tick, substance = excluded.substance, observations = excluded.observations,
      evidence = excluded.evidence,
      change_rate_per_hour = excluded.change_rate_per_hour, changed_at = excluded.changed_at,
      compared = excluded.compared, changes = excluded.changes`;
}

/** What the policy reads of each watched address of `dataset`: its settings and what its refreshes taught. */
export interface TargetState {
  target: string;
  maxAgeSeconds: number | null;
  everySeconds: number | null;
  /** The refresh_targets row's, else the watermark's (refreshed before the policy recorded it); null: never. */
  lastTick: Date | null;
  /** Null when no refresh was recorded by the policy. */
  changeRatePerHour: number | null;
  changedAt: Date | null;
}

export async function loadTargetStates(database: Database, dataset: AddressDataset): Promise<TargetState[]> {
  return runSql(database, 'refresh_targets.read')<TargetState[]>`
    select a.address as target, a.max_age_s as "maxAgeSeconds", a.every_s as "everySeconds",
           coalesce(r.last_tick, w.last_success_tick) as "lastTick",
           r.change_rate_per_hour as "changeRatePerHour", r.changed_at as "changedAt"
    from watched_addresses a
    left join refresh_targets r on r.dataset = ${dataset} and r.target = a.address
    left join dataset_watermarks w on w.dataset = ${dataset} and w.target = a.address
    where ${dataset} = any(a.datasets)
    order by a.address`;
}
