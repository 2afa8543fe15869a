import type { JobsOptions } from 'bullmq';
import {
  jobId,
  priceBatchTarget,
  type MaintenanceJobData,
  type NftJobData,
  type PositionsJobData,
  type PriceJobData,
} from '../queue/jobs.ts';
import { MAX_COINS_PER_PRICE_REQUEST } from '../upstream/limits.ts';
import type { AddressDataset, QueueName } from '../datasets.ts';

/** A job a tick produces: its id comes from dataset, target and tick only, so producers agree. */
export interface PlannedJob<T> {
  name: string;
  /** What the job refreshes: an address, a price batch; at most one job per target waits at a time. */
  target: string;
  data: T;
  opts: JobsOptions & { jobId: string };
}

export interface WatchedAddressOptions {
  address: string;
  /** The datasets the address is watched for (default: both). */
  datasets?: readonly AddressDataset[];
  chain: string | null;
  protocols: string[] | null;
  nftChain: string;
  includePnl: boolean;
}

function watching(addresses: WatchedAddressOptions[], dataset: AddressDataset): WatchedAddressOptions[] {
  return addresses.filter((watched) => watched.datasets?.includes(dataset) ?? true);
}

function planned<T>(queue: QueueName, target: string, tick: Date, data: T): PlannedJob<T> {
  return { name: queue, target, data, opts: { jobId: jobId(queue, target, tick) } };
}

/**
 * Sorted, in batches of at most 50 coin types; `at` asks for past prices; `slotEnd`: PriceJobData's.
 * A backfill's jobs are marked as such.
 */
export function priceJobs(
  coinTypes: string[],
  tick: Date,
  options: { at?: Date; kind?: 'tokens' | 'backfill'; slotEnd?: Date } = {},
): PlannedJob<PriceJobData>[] {
  const sorted = [...new Set(coinTypes)].sort();
  return Array.from({ length: Math.ceil(sorted.length / MAX_COINS_PER_PRICE_REQUEST) }, (_, index) => {
    const batch = sorted.slice(index * MAX_COINS_PER_PRICE_REQUEST, (index + 1) * MAX_COINS_PER_PRICE_REQUEST);
    const target = priceBatchTarget(batch, options.kind ?? 'tokens');
    return planned('prices', target, tick, {
      tick: tick.toISOString(),
      target,
      coinTypes: batch,
      ...(options.at ? { at: options.at.toISOString() } : {}),
      ...(options.slotEnd && !options.at ? { slotEnd: options.slotEnd.toISOString() } : {}),
      ...(options.kind === 'backfill' ? { backfill: true as const } : {}),
    });
  });
}

export function positionJobs(
  addresses: WatchedAddressOptions[],
  tick: Date,
  forceRefresh: boolean,
): PlannedJob<PositionsJobData>[] {
  return watching(addresses, 'positions').map((watched) =>
    planned('positions', watched.address, tick, {
      tick: tick.toISOString(),
      address: watched.address,
      ...(watched.chain ? { chain: watched.chain } : {}),
      ...(watched.protocols?.length ? { protocols: watched.protocols } : {}),
      forceRefresh,
    }),
  );
}

export function nftJobs(addresses: WatchedAddressOptions[], tick: Date): PlannedJob<NftJobData>[] {
  return watching(addresses, 'nfts').map((watched) =>
    planned('nfts', watched.address, tick, {
      tick: tick.toISOString(),
      address: watched.address,
      chain: watched.nftChain,
      includePnl: watched.includePnl,
    }),
  );
}

/** Housekeeping first (the queue runs one job at a time, in order), then the protocol sync. */
export function maintenanceJobs(tick: Date): PlannedJob<MaintenanceJobData>[] {
  return [
    planned('maintenance', 'daily', tick, { tick: tick.toISOString(), kind: 'housekeeping' }),
    planned('maintenance', 'protocols', tick, { tick: tick.toISOString(), kind: 'protocols' }),
  ];
}
