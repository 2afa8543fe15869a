import type { Dataset, QueueName, TickStream } from '../datasets.ts';

/**
 * Every Redis key chaintap uses, under QUEUE_PREFIX. Keys that one script or queue uses together share
 * a hash tag, `{<prefix>:<group>}`, so that on Redis Cluster they sit in one slot (a script may only
 * touch one) while the groups spread over the shards. The layout is the same on every topology.
 */
export function hashTag(prefix: string, group: string): string {
  return `{${prefix}:${group}}`;
}

/** BullMQ's prefix for one queue: its keys are `{chaintap:prices}:prices:wait` and so on. */
export function queueKeyPrefix(prefix: string, queue: QueueName): string {
  return hashTag(prefix, queue);
}

/** The tick tracker's four keys of one tick, in the order its scripts take them. */
export function tickKeys(prefix: string, stream: TickStream, label: string): [string, string, string, string] {
  const tag = hashTag(prefix, `tick:${stream}:${label}`);
  return [`${tag}:pending`, `${tag}:finished`, `${tag}:completed`, `${tag}:superseded`];
}

/** The newest job of each target of a dataset (src/queue/pending-targets.ts). */
export function pendingTargetsKey(prefix: string, dataset: Dataset): string {
  return hashTag(prefix, `pending-targets:${dataset}`);
}

/** Price slots to fill later (src/queue/price-gaps.ts). */
export function priceGapsKey(prefix: string): string {
  return `${hashTag(prefix, 'prices')}:gaps`;
}

/** The newest price slot any scheduler enqueued. */
export function lastPriceSlotKey(prefix: string): string {
  return `${hashTag(prefix, 'scheduler')}:last-price-slot`;
}

/** Each scheduler's clock against Redis's (src/scheduler/clock-skew.ts). */
export function schedulerClocksKey(prefix: string): string {
  return `${hashTag(prefix, 'scheduler')}:clocks`;
}

/** The shared upstream pacer's key; its second key (`:starts`) shares the tag. */
export function upstreamPaceKey(prefix: string): string {
  return `${hashTag(prefix, 'upstream')}:pace`;
}

/** A SCAN pattern for every key of the prefix (tests and benchmarks clean up with it). */
export function keysPattern(prefix: string): string {
  return `{${prefix}:*`;
}
