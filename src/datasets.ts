/**
 * chaintap's words for what it ingests, defined once, each from the one before:
 * - a dataset is a kind of data a tick produces (prices, positions, nfts);
 * - a queue holds one dataset's jobs, the price catch-up's (past price slots filled later, apart so
 *   that they never hold up current prices), or the maintenance jobs (housekeeping, not a dataset);
 * - a tick stream is what a tick's jobs count towards: a dataset's scheduled ticks, or the time
 *   steps of a price backfill;
 * - an upstream operation is one kind of upstream request: a dataset's, or the protocol list that
 *   maintenance reads.
 */
export const DATASETS = ['prices', 'positions', 'nfts'] as const;
export type Dataset = (typeof DATASETS)[number];

/** The datasets a watched address is refreshed for (each address chooses one or both). */
export const ADDRESS_DATASETS = ['positions', 'nfts'] as const;
export type AddressDataset = (typeof ADDRESS_DATASETS)[number];

export const QUEUE_NAMES = [...DATASETS, 'price-catch-up', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export type TickStream = Dataset | 'backfill';

/** The tick stream a queue's jobs count towards: catch-up fills the prices ticks; maintenance none. */
export function queueStream(queue: QueueName): Dataset | undefined {
  if (queue === 'price-catch-up') return 'prices';
  return queue === 'maintenance' ? undefined : queue;
}

export type UpstreamOperation = Dataset | 'protocols';
