import { expect } from 'vitest';
import type { Dataset } from '../../src/datasets.ts';
import { MAX_COINS_PER_PRICE_REQUEST } from '../../src/upstream/limits.ts';
import type { PipelineHarness } from './pipeline.ts';
import { coin } from './coins.ts';

/**
 * What the Redis failover tests (test/pipeline/redis-sentinel.test.ts, redis-cluster-failover.test.ts)
 * share: a watchlist that takes a few seconds at their quota, so that a failover lands mid-cycle,
 * and the checks that every job of a tick ended succeeded exactly once.
 */
export function failoverWatchlist(firstAddress: number): { addresses: string[]; tokens: string[]; priceJobs: number } {
  const addresses = Array.from({ length: 30 }, (_, i) => `0x${(firstAddress + i).toString(16).padStart(64, '0')}`);
  const tokens = ['0x2::sui::SUI', ...Array.from({ length: 39 }, (_, i) => coin(i))];
  return { addresses, tokens, priceJobs: Math.ceil(tokens.length / MAX_COINS_PER_PRICE_REQUEST) };
}

/** The settings that make a cycle of failoverWatchlist last about 6 s. */
export const FAILOVER_CYCLE_OPTIONS = { UPSTREAM_RATE: '12/s', UPSTREAM_CONCURRENCY: '4', OPS_PORT: '0' };
export const FAILOVER_CYCLE_SIMULATOR = { faults: { latencyMs: 50 } };

/** ingestion_runs rows of the tick so far. */
export async function finishedRuns(harness: PipelineHarness, tick: Date): Promise<number> {
  const [row] = await harness.database.sql<{ n: number }[]>`
    select count(*)::int as n from ingestion_runs where tick = ${tick}`;
  return row!.n;
}

/** Resolves once at least `count` jobs of the tick have finished: the cycle is under way. */
export async function untilRunsFinished(harness: PipelineHarness, tick: Date, count: number): Promise<void> {
  while ((await finishedRuns(harness, tick)) < count) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * Every job of the tick succeeded at its first attempt (`jobs`: how many per dataset), and the
 * upstream saw one request per job since `requestsBefore`: none ran twice, none was retried.
 */
export async function expectEachJobSucceededOnce(
  harness: PipelineHarness,
  tick: Date,
  jobs: Partial<Record<Dataset, number>>,
  requestsBefore = 0,
): Promise<void> {
  const runs = await harness.database.sql<{ dataset: string; status: string; attempts: number; n: number }[]>`
    select dataset, status, attempts, count(*)::int as n from ingestion_runs
    where tick = ${tick} group by 1, 2, 3 order by 1`;
  const expected = Object.entries(jobs)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([dataset, n]) => ({ dataset, status: 'succeeded', attempts: 1, n }));
  expect(runs).toEqual(expected);
  const total = Object.values(jobs).reduce((sum, n) => sum + n, 0);
  expect(harness.simulator.stats().requests - requestsBefore).toBe(total);
}

/** Redis holds every job of the queues as completed (`completed` per queue), none failed or left behind. */
export async function expectQueuesDrained(
  harness: PipelineHarness,
  completed: Partial<Record<Dataset, number>>,
): Promise<void> {
  for (const [dataset, n] of Object.entries(completed) as [Dataset, number][]) {
    const counts = await harness.queues[dataset].getJobCounts('completed', 'failed', 'active', 'waiting', 'delayed');
    expect(counts, dataset).toEqual({ completed: n, failed: 0, active: 0, waiting: 0, delayed: 0 });
  }
}
