import type { Queues } from '../queue/queues.ts';
import type { QueueName } from '../datasets.ts';

/** The job states shown and exported, in the order a reader scans them. */
export const QUEUE_STATES = [
  'waiting',
  'prioritized',
  'delayed',
  'active',
  'waiting-children',
  'failed',
  'completed',
] as const;
/** Job counts of every queue by state, read from Redis (a handful of ZCARD/LLEN per queue). */
export async function readQueueDepths(queues: Queues) {
  return Promise.all(
    (Object.entries(queues) as [QueueName, Queues[QueueName]][]).map(async ([queue, instance]) => {
      const reply = await instance.getJobCounts(...QUEUE_STATES);
      const counts = Object.fromEntries(QUEUE_STATES.map((state) => [state, reply[state] ?? 0]));
      return { queue, counts: counts as Record<(typeof QUEUE_STATES)[number], number> };
    }),
  );
}
