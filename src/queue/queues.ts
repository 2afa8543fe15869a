import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/** One queue per dataset; every job of a queue calls the same upstream operation. */
export const QUEUE_NAMES = ['prices', 'positions', 'nfts', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
export type Queues = Record<QueueName, Queue>;

/** The datasets a tick produces (maintenance is a housekeeping queue, not a dataset). */
export const DATASETS = ['prices', 'positions', 'nfts'] as const;
export type Dataset = (typeof DATASETS)[number];

export function createQueues(connection: Redis, prefix: string): Queues {
  return Object.fromEntries(
    QUEUE_NAMES.map((name) => [name, new Queue(name, { connection, prefix })]),
  ) as Queues;
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((queue) => queue.close()));
}
