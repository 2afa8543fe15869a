import type { UpstreamClient } from '../upstream/client.ts';
import { withShutdown } from '../runtime/shutdown.ts';
import { createWorkerPool } from '../worker/workers.ts';
import { produceTick, type ProducedTick, type ProducerDeps } from '../scheduler/producer.ts';
import type { Dataset, QueueName, TickStream } from '../datasets.ts';
import { sleep } from '../runtime/sleep.ts';

export type CycleDeps = ProducerDeps & { client: UpstreamClient };

const POLL_MS = 200;
const IDLE_POLLS_BEFORE_GIVING_UP = 15;

/**
 * One cycle enqueued through the scheduler's queues and processed by workers in this process (others
 * on the same Redis may take part), until every job has reached its outcome: `complete` is false when
 * the queues went idle with jobs that never did (lost to stalls).
 */
export async function runCycle(deps: CycleDeps, request: { tick: Date; datasets: readonly Dataset[] }) {
  return withShutdown(deps.context.logger, async (shutdown) => {
    const pool = createWorkerPool({ ...deps, queueNames: request.datasets });
    shutdown.add('workers', () => pool.close());
    const produced: ProducedTick[] = [];
    for (const dataset of request.datasets) produced.push(await produceTick(deps, dataset, request.tick));
    const complete = await waitForTicks(deps, {
      streams: request.datasets.map((dataset) => ({ stream: dataset, tick: request.tick })),
      queues: request.datasets,
    });
    return { produced, complete };
  });
}

/** Polls until every stream's tick is complete, or the queues went idle with jobs unaccounted for. */
export async function waitForTicks(
  deps: Pick<CycleDeps, 'queues' | 'tracker' | 'context'>,
  wait: {
    streams: { stream: TickStream; tick: Date }[];
    /** Queues whose emptiness means nothing more will happen. */
    queues: readonly QueueName[];
    onProgress?: (finished: number, expected: number) => void;
  },
): Promise<boolean> {
  let idlePolls = 0;
  for (;;) {
    const progress = await Promise.all(wait.streams.map(({ stream, tick }) => deps.tracker.progress(stream, tick)));
    const finished = progress.reduce((sum, p) => sum + Math.min(p.finished, p.expected), 0);
    const expected = progress.reduce((sum, p) => sum + p.expected, 0);
    wait.onProgress?.(finished, expected);
    if (progress.every((p) => p.complete)) return true;
    if (deps.context.signal.aborted) return false;
    const busy = await Promise.all(
      wait.queues.map(async (queue) => {
        const counts = await deps.queues[queue].getJobCounts('wait', 'active', 'delayed', 'prioritized');
        return Object.values(counts).some((count) => count > 0);
      }),
    );
    idlePolls = busy.some(Boolean) ? 0 : idlePolls + 1;
    if (idlePolls >= IDLE_POLLS_BEFORE_GIVING_UP) return false;
    await sleep(POLL_MS);
  }
}
