import type { Sql } from '../../src/db/client.ts';
import type { Queues } from '../../src/queue/queues.ts';
import type { Dataset } from '../../src/datasets.ts';

/** The queues whose waiting jobs the quota scenario bounds. */
export const BACKLOG_QUEUES = ['prices', 'positions', 'nfts', 'price-catch-up'] as const;
export type BacklogQueue = (typeof BACKLOG_QUEUES)[number];

const MINUTE = 60_000;

/** Jobs not yet started per queue: waiting, prioritized (every job with a priority) and delayed (retries). */
export async function sampleBacklog(queues: Queues): Promise<Record<BacklogQueue, number>> {
  const entries = await Promise.all(
    BACKLOG_QUEUES.map(async (queue) => {
      const counts = await queues[queue].getJobCounts('waiting', 'prioritized', 'delayed');
      return [queue, (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0)] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<BacklogQueue, number>;
}

/**
 * For every target of each dataset, how old its newest successful tick is at `now`, in simulated
 * minutes (dataset_watermarks: now - last_success_tick); a target never refreshed counts as old as
 * the run (now - runStart).
 */
export async function targetAges(
  sql: Sql,
  targets: Record<Dataset, string[]>,
  now: number,
  runStart: number,
): Promise<Record<Dataset, number[]>> {
  const rows = await sql<{ dataset: Dataset; target: string; tick: Date }[]>`
    select dataset, target, last_success_tick as tick from dataset_watermarks`;
  const newest = new Map(rows.map((row) => [`${row.dataset}\u0000${row.target}`, row.tick.getTime()]));
  const ages = (dataset: Dataset) =>
    targets[dataset].map((target) => (now - (newest.get(`${dataset}\u0000${target}`) ?? runStart)) / MINUTE);
  return { prices: ages('prices'), positions: ages('positions'), nfts: ages('nfts') };
}

/** The nearest-rank percentile (p in (0, 1]) of values; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}
