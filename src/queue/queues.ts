import { Queue } from 'bullmq';
import type { RedisClient } from '../runtime/redis-connection.ts';
import { queueKeyPrefix } from './redis-keys.ts';
import { QUEUE_NAMES, type QueueName } from '../datasets.ts';

/** One queue per dataset, and one for maintenance; every job of a queue calls the same upstream operation. */
export type Queues = Record<QueueName, Queue>;

export function createQueues(connection: RedisClient, prefix: string): Queues {
  return Object.fromEntries(
    QUEUE_NAMES.map((name) => {
      const queue = new Queue(name, { connection, prefix: queueKeyPrefix(prefix, name) });
      // A queue repeats its connection's errors, which the connection's owner logs already; without
      // a listener BullMQ prints each one to stderr with its stack (a Redis restart, a failover).
      queue.on('error', () => undefined);
      return [name, queue];
    }),
  ) as Queues;
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((queue) => queue.close()));
}
