import { listWatchedAddresses } from '../../src/db/index.ts';
import { waitForTicks } from '../../src/cli/run-cycle.ts';
import { nftJobs, positionJobs, type PlannedJob } from '../../src/scheduler/job-builders.ts';
import { enqueueJobs } from '../../src/scheduler/producer.ts';
import type { BenchPipeline } from './pipeline.ts';

/**
 * One positions and NFT tick of the first `addresses` watched addresses, at a tick of its own,
 * through the workers just started: their code compiled, their connections open and their
 * statements prepared, as those of workers that have run since the previous cron slot are. The
 * measured tick then starts at the pace a long-running deployment has.
 */
export async function warmUpWorkers(pipeline: BenchPipeline, addresses: number, tick: Date): Promise<void> {
  const watched = (await listWatchedAddresses(pipeline.database)).slice(0, addresses);
  const queues = [
    ['positions', positionJobs(watched, tick, false)],
    ['nfts', nftJobs(watched, tick)],
  ] as const satisfies readonly (readonly ['positions' | 'nfts', PlannedJob<unknown>[]])[];
  for (const [queue, jobs] of queues) {
    await pipeline.tracker.expect(
      queue,
      tick,
      jobs.map((job) => job.opts.jobId),
    );
    await enqueueJobs(pipeline, queue, jobs);
  }
  const complete = await waitForTicks(pipeline, {
    streams: queues.map(([stream]) => ({ stream, tick })),
    queues: ['positions', 'nfts'],
  });
  if (!complete) throw new Error('the warm-up tick did not complete');
}
