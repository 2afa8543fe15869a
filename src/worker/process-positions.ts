import type { Job } from 'bullmq';
import { writePositions } from '../db/index.ts';
import { normalizePositions } from '../normalize/index.ts';
import type { JobResult, PositionsJobData } from '../queue/jobs.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { runIngestionJob, type IngestionDeps } from './ingestion-job.ts';

/** The DeFi positions of one address at one tick. */
export function processPositions(deps: IngestionDeps, client: UpstreamClient) {
  return (job: Job<PositionsJobData>, signal: AbortSignal): Promise<JobResult> => {
    const { address, chain, protocols, forceRefresh } = job.data;
    const tick = new Date(job.data.tick);
    // Only an unfiltered answer is the whole truth about an address, and only when every element
    // could be read (a quarantined one may be a position still held): only it closes positions.
    const unfiltered = !chain && !protocols?.length;
    return runIngestionJob(
      deps,
      job,
      {
        dataset: 'positions',
        trackedStream: 'positions',
        target: address,
        tick,
        endpoint: `/v2/address/${encodeURIComponent(address)}/positions`,
        fetch: (abort) => client.fetchPositions(address, { chain, protocols, forceRefresh, signal: abort }),
        normalize: (data) => normalizePositions(data, { owner: address, snapshotAt: tick }),
        outcome: (rows) => rows,
        write: (tx, rows) =>
          writePositions(tx, rows, {
            owner: address,
            snapshotAt: tick,
            complete: unfiltered && rows.quarantined.length === 0,
          }),
      },
      signal,
    );
  };
}
