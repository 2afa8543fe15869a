import { createPriceGaps } from '../queue/price-gaps.ts';
import { produceTick, type ProducerDeps } from './producer.ts';

/** States in which a catch-up job has not finished. */
const UNFINISHED = ['waiting', 'prioritized', 'delayed', 'active', 'waiting-children'] as const;

/**
 * Enqueues the newest price gap when the catch-up queue has nothing unfinished: one slot at a time, so
 * that it adds at most one slot's jobs to the backlog. Returns the slot, if any.
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
