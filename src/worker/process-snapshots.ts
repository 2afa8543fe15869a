import type { Job } from 'bullmq';
import { writeNftHoldings, writePositions, writeTokenPrices } from '../db/index.ts';
import { parseNftChain } from '../chain/address.ts';
import { normalizeNftHoldings, normalizePositions } from '../normalize/index.ts';
import type { JobResult, NftJobData, PositionsJobData } from '../queue/jobs.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { answerPrices, recordRefresh, type RefreshOutcome } from '../refresh/lifecycle.ts';
import { nftSubstance, positionsSubstance } from '../refresh/substance.ts';
import type { AddressDataset } from '../datasets.ts';
import { runIngestionJob, type IngestionDeps } from './ingestion-job.ts';

// The address datasets' jobs. A quarantined element may be a position or collection still held: an
// answer with one closes or releases nothing. The prices an answer carries are written with its rows.

/** The DeFi positions of one address at one tick. */
export function processPositions(deps: IngestionDeps, client: UpstreamClient) {
  return async (job: Job<PositionsJobData>, signal: AbortSignal): Promise<JobResult> => {
    const { address, chain, protocols, forceRefresh } = job.data;
    const tick = new Date(job.data.tick);
    // Only an unfiltered answer is the whole truth about an address.
    const unfiltered = !chain && !protocols?.length;
    let refresh: RefreshOutcome | undefined;
    const result = await runIngestionJob(deps, job, signal, {
      dataset: 'positions',
      trackedStream: 'positions',
      target: address,
      tick,
      endpoint: `/v2/address/${encodeURIComponent(address)}/positions`,
      fetch: (abort) => client.fetchPositions(address, { chain, protocols, forceRefresh, signal: abort }),
      normalize: (data) => normalizePositions(data, { owner: address, snapshotAt: tick, fetchedAt: new Date() }),
      outcome: (rows) => rows,
      write: async (tx, rows) => {
        const written = {
          ...(await writePositions(tx, rows, {
            owner: address,
            snapshotAt: tick,
            complete: unfiltered && rows.quarantined.length === 0,
          })),
          ...(await writeTokenPrices(tx, rows.harvested)),
        };
        const substance = rows.quarantined.length === 0 ? positionsSubstance(rows) : null;
        const prices = answerPrices(rows.harvested.prices);
        refresh = await recordRefresh(tx, { dataset: 'positions', target: address, tick, substance, prices });
        return written;
      },
    });
    reportRefresh(deps, 'positions', refresh);
    return result;
  };
}

/** The NFT holdings of one address at one tick, with PnL when the address asks for it. */
export function processNfts(deps: IngestionDeps, client: UpstreamClient) {
  return async (job: Job<NftJobData>, signal: AbortSignal): Promise<JobResult> => {
    const { address, includePnl } = job.data;
    const chain = parseNftChain(job.data.chain);
    const tick = new Date(job.data.tick);
    let refresh: RefreshOutcome | undefined;
    const result = await runIngestionJob(deps, job, signal, {
      dataset: 'nfts',
      trackedStream: 'nfts',
      target: address,
      tick,
      endpoint: `/v2/address/${encodeURIComponent(address)}/nft-holding`,
      fetch: (abort) => client.fetchNftHoldings(address, { chain, includePnl, signal: abort }),
      normalize: (data) => normalizeNftHoldings(data, { owner: address, snapshotAt: tick, fetchedAt: new Date() }),
      outcome: (rows) => rows,
      write: async (tx, rows) => {
        const written = {
          ...(await writeNftHoldings(tx, rows, {
            owner: address,
            snapshotAt: tick,
            scopeChain: chain,
            complete: rows.quarantined.length === 0,
          })),
          ...(await writeTokenPrices(tx, rows.harvested)),
        };
        const substance = rows.quarantined.length === 0 ? nftSubstance(rows) : null;
        refresh = await recordRefresh(tx, { dataset: 'nfts', target: address, tick, substance });
        return written;
      },
    });
    reportRefresh(deps, 'nfts', refresh);
    return result;
  };
}

/** The refresh's result in /metrics, once its transaction committed (docs/quota.md). */
function reportRefresh(deps: IngestionDeps, dataset: AddressDataset, refresh: RefreshOutcome | undefined): void {
  if (!refresh) return;
  const result = !refresh.compared ? 'not_compared' : refresh.changed ? 'changed' : 'unchanged';
  deps.context.metrics.refreshes.inc({ dataset, result });
}
