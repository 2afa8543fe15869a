import { createPriceGaps } from '../queue/price-gaps.ts';
import { produceTick, type ProducerDeps } from './producer.ts';

/** States in which a catch-up job has not finished. */
const UNFINISHED = ['waiting', 'prioritized', 'delayed', 'active', 'waiting-children'] as const;

/**
 * Fills the newest price gap (queue/price-gaps.ts) when the catch-up queue has nothing unfinished:
 * the watched tokens' prices at that slot, through the upstream's `timestamp`, in the
 * `price-catch-up` queue. One slot at a time, so that the catch-up adds at most one slot's jobs to
 * the backlog; its requests wait for the quota after every current one (DATASET_PRIORITY), and its
 * worker takes a quarter of UPSTREAM_CONCURRENCY, so it never holds up current prices. Returns the
 * slot it enqueued, if any. Two schedulers may run it at once: they enqueue the same job ids.
 */
export async function fillNewestPriceGap(deps: ProducerDeps): Promise<Date | undefined> {
  const queue = deps.queues['price-catch-up'];
  const counts = await queue.getJobCounts(...UNFINISHED);
  if (UNFINISHED.some((state) => (counts[state] ?? 0) > 0)) return undefined;
  const gaps = createPriceGaps(deps.redis, deps.context.options.QUEUE_PREFIX);
  const slot = await gaps.newest();
  if (!slot) return undefined;
  await produceTick(deps, 'price-catch-up', slot, { at: slot });
  await gaps.remove(slot);
  return slot;
}
