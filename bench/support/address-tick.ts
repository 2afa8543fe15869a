import { waitForTicks } from '../../src/cli/run-cycle.ts';
import { produceTick } from '../../src/scheduler/producer.ts';
import type { BenchPipeline } from './pipeline.ts';
import type { WorkerProcesses } from './worker-processes.ts';

/** Enqueues one positions and one NFT tick of every watched address, and waits until both complete. */
export async function runAddressTick(pipeline: BenchPipeline, workers: WorkerProcesses, tick: Date): Promise<void> {
  await produceTick(pipeline, 'positions', tick);
  await produceTick(pipeline, 'nfts', tick);
  const complete = await waitForTicks(pipeline, {
    streams: [
      { stream: 'positions', tick },
      { stream: 'nfts', tick },
    ],
    queues: ['positions', 'nfts'],
  });
  if (!complete) throw new Error(`the tick did not complete: ${workers.output()}`);
}
