import { createHash } from 'node:crypto';
import type { QueueName } from '../datasets.ts';

/** What each queue's jobs carry. Times travel as ISO strings (job data is JSON). */
export interface PriceJobData {
  tick: string;
  /** A stable name for this batch of coin types (ingestion_runs.target). */
  target: string;
  coinTypes: string[];
  /** Ask for the price at this time (catch-up and backfill); absent: the current price. */
  at?: string;
  /** Past this time (the cron's next slot) a current price no longer stands for this slot: it becomes a price gap. */
  slotEnd?: string;
  /** Set for backfill jobs, whose completion is tracked apart from the scheduled ticks. */
  backfill?: true;
}

export interface PositionsJobData {
  tick: string;
  address: string;
  chain?: string;
  protocols?: string[];
  forceRefresh: boolean;
}

export type NftJobData = { tick: string; address: string; chain: string; includePnl: boolean };

/**
 * The daily maintenance, two jobs so that one never waits on the other: `housekeeping` (Postgres only;
 * also a job without a kind, enqueued before the split) and `protocols` (the upstream's list).
 */
export type MaintenanceJobData = { tick: string; kind?: 'housekeeping' | 'protocols' };

/** What a processed job reports back (BullMQ return value, and run-once's summary). */
export type JobResult = { outcome: 'succeeded' | 'quarantined'; rowsWritten: number };

/** The tick as it appears in job ids: ISO without ':' (BullMQ forbids it), e.g. 2026-11-21T20-45-00Z. */
export function tickLabel(tick: Date): string {
  return tick
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
}

/** Deterministic, so that a tick enqueued twice (two schedulers, a retried producer) is one job. */
export function jobId(queue: QueueName, target: string, tick: Date): string {
  return `${queue}-${target.replace(/:/g, '_')}-${tickLabel(tick)}`;
}

/** A short stable name for a batch of coin types: the same set gives the same name. */
export function priceBatchTarget(coinTypes: string[], kind: 'tokens' | 'backfill' = 'tokens'): string {
  const digest = createHash('sha256')
    .update([...coinTypes].sort().join(','))
    .digest('hex');
  return `${kind}-${digest.slice(0, 12)}`;
}
