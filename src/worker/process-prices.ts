import type { Job } from 'bullmq';
import { normalizeCoinType } from '../chain/coin-type.ts';
import { writeTokenPrices } from '../db/index.ts';
import { normalizeTokenPrices } from '../normalize/index.ts';
import { priceWindow } from '../normalize/price-plausibility.ts';
import type { JobResult, PriceJobData } from '../queue/jobs.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { runIngestionJob, type IngestionDeps } from './ingestion-job.ts';

/**
 * One price request: at most 50 coin types, at `at` or current. Only the coin types asked for, at
 * plausible prices and times, are stored (price-plausibility.ts); the rest is quarantined per entry.
 * A current job none of whose prices falls in its slot ([tick, slotEnd): all fetched after it ended,
 * or dated before it began) leaves the slot to the catch-up as a gap.
 */
export function processPrices(deps: IngestionDeps, client: UpstreamClient) {
  return async (job: Job<PriceJobData>, signal: AbortSignal): Promise<JobResult> => {
    const { coinTypes, target } = job.data;
    const at = job.data.at ? new Date(job.data.at) : undefined;
    const stream = job.data.backfill ? 'backfill' : 'prices';
    const tick = new Date(job.data.tick);
    const slotEnd = job.data.slotEnd ? Date.parse(job.data.slotEnd) : undefined;
    const asked = coinTypes.map((coinType) => normalizeCoinType(coinType));
    let missedSlot = false;
    const result = await runIngestionJob(deps, job, signal, {
      dataset: stream,
      trackedStream: stream,
      target,
      tick,
      endpoint: '/tokens/sui/price',
      fetch: (abort) => client.fetchTokenPriceBatch(coinTypes, { at, signal: abort }),
      normalize: (data) => {
        const fetchedAt = new Date();
        const rows = normalizeTokenPrices(data, {
          asked,
          window: priceWindow({ asked: at, slot: tick, fetchedAt }),
          fetchedAt,
        });
        const inSlot = (time: Date) => time.getTime() >= tick.getTime() && time.getTime() < slotEnd!;
        missedSlot =
          slotEnd !== undefined &&
          rows.prices.length + rows.quarantined.length > 0 &&
          !rows.prices.some((price) => inSlot(price.priceTime));
        return rows;
      },
      outcome: (rows) => rows,
      write: (tx, rows) => writeTokenPrices(tx, rows),
    });
    if (missedSlot) {
      await deps.priceGaps.add([tick]);
      deps.context.logger.info(
        { jobId: job.id, tick: tick.toISOString(), outcome: result.outcome },
        'no current price of this job falls in its slot: the slot will be filled at its own time',
      );
    }
    return result;
  };
}
