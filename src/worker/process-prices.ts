import type { Job } from 'bullmq';
import { writeTokenPrices } from '../db/index.ts';
import { normalizeTokenPrices } from '../normalize/index.ts';
import type { JobResult, PriceJobData } from '../queue/jobs.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { runIngestionJob, type IngestionDeps } from './ingestion-job.ts';

/**
 * One price request: at most 50 coin types, at `at` or current. A current job so late that none of
 * its prices falls in its slot (all at or after `slotEnd`) leaves the slot to the catch-up as a gap.
 */
export function processPrices(deps: IngestionDeps, client: UpstreamClient) {
  return async (job: Job<PriceJobData>, signal: AbortSignal): Promise<JobResult> => {
    const { coinTypes, target } = job.data;
    const at = job.data.at ? new Date(job.data.at) : undefined;
    const stream = job.data.backfill ? 'backfill' : 'prices';
    const tick = new Date(job.data.tick);
    const slotEnd = job.data.slotEnd ? Date.parse(job.data.slotEnd) : undefined;
    let late = false;
    const result = await runIngestionJob(deps, job, signal, {
      dataset: stream,
      trackedStream: stream,
      target,
      tick,
      endpoint: '/tokens/sui/price',
      fetch: (abort) => client.fetchTokenPriceBatch(coinTypes, { at, signal: abort }),
      normalize: (data) => {
        const rows = normalizeTokenPrices(data, { fetchedAt: new Date() });
        late =
          slotEnd !== undefined &&
          rows.prices.length > 0 &&
          rows.prices.every((price) => price.priceTime.getTime() >= slotEnd);
        return rows;
      },
      outcome: (rows) => rows,
      write: (tx, rows) => writeTokenPrices(tx, rows),
    });
    if (result.outcome === 'succeeded' && late) {
      await deps.priceGaps.add([tick]);
      deps.context.logger.info(
        { jobId: job.id, tick: tick.toISOString() },
        'current prices fetched after their slot ended: the slot will be filled at its own time',
      );
    }
    return result;
  };
}
