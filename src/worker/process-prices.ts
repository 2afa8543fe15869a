import type { Job } from 'bullmq';
import { writeTokenPrices } from '../db/index.js';
import { normalizeTokenPrices } from '../normalize/index.js';
import type { JobResult, PriceJobData } from '../queue/jobs.js';
import type { UpstreamClient } from '../upstream/client.js';
import { runIngestionJob, type IngestionDeps } from './ingestion-job.js';

/** One price request: at most 50 coin types, the current price or the price at `at`. */
export function processPrices(deps: IngestionDeps, client: UpstreamClient) {
  return (job: Job<PriceJobData>, signal: AbortSignal): Promise<JobResult> => {
    const { coinTypes, target } = job.data;
    const at = job.data.at ? new Date(job.data.at) : undefined;
    const stream = job.data.backfill ? 'backfill' : 'prices';
    return runIngestionJob(
      deps,
      job,
      {
        dataset: stream,
        trackedStream: stream,
        target,
        tick: new Date(job.data.tick),
        endpoint: '/tokens/sui/price',
        fetch: (abort) => client.fetchTokenPriceBatch(coinTypes, { at, signal: abort }),
        normalize: (data) => normalizeTokenPrices(data, { fetchedAt: new Date() }),
        outcome: (rows) => rows,
        write: (tx, rows) => writeTokenPrices(tx, rows),
      },
      signal,
    );
  };
}
