import type { Job } from 'bullmq';
import { writeNftHoldings } from '../db/index.ts';
import { parseNftChain } from '../chain/address.ts';
import { normalizeNftHoldings } from '../normalize/index.ts';
import type { JobResult, NftJobData } from '../queue/jobs.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { runIngestionJob, type IngestionDeps } from './ingestion-job.ts';

/** The NFT holdings of one address at one tick, with PnL when the address asks for it. */
export function processNfts(deps: IngestionDeps, client: UpstreamClient) {
  return (job: Job<NftJobData>, signal: AbortSignal): Promise<JobResult> => {
    const { address, includePnl } = job.data;
    const chain = parseNftChain(job.data.chain);
    const tick = new Date(job.data.tick);
    return runIngestionJob(
      deps,
      job,
      {
        dataset: 'nfts',
        trackedStream: 'nfts',
        target: address,
        tick,
        endpoint: `/v2/address/${encodeURIComponent(address)}/nft-holding`,
        fetch: (abort) => client.fetchNftHoldings(address, { chain, includePnl, signal: abort }),
        normalize: (data) => normalizeNftHoldings(data, { owner: address, snapshotAt: tick }),
        outcome: (rows) => rows,
        // A quarantined group may be a collection still held: then the answer releases nothing.
        write: (tx, rows) =>
          writeNftHoldings(tx, rows, {
            owner: address,
            snapshotAt: tick,
            scopeChain: chain,
            complete: rows.quarantined.length === 0,
          }),
      },
      signal,
    );
  };
}
