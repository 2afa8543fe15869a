/** The kinds of data a tick produces. */
export const DATASETS = ['prices', 'positions', 'nfts'] as const;
export type Dataset = (typeof DATASETS)[number];

/** The datasets a watched address is refreshed for (each address chooses one or both). */
export const ADDRESS_DATASETS = ['positions', 'nfts'] as const;
export type AddressDataset = (typeof ADDRESS_DATASETS)[number];

/** Price catch-up fills past price slots apart, so that it never holds up current prices. */
export const QUEUE_NAMES = [...DATASETS, 'price-catch-up', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** What a tick's jobs count towards: a dataset's scheduled ticks, or a price backfill's time steps. */
export type TickStream = Dataset | 'backfill';

/** A kind of upstream request: a dataset's, or the protocol list that maintenance reads. */
export type UpstreamOperation = Dataset | 'protocols';
