import { enqueueJobs } from '../../src/scheduler/producer.ts';
import type { PlannedJob } from '../../src/scheduler/job-builders.ts';
import { createWorkerPool } from '../../src/worker/workers.ts';
import { startFaultServer, type FaultServer } from '../upstream/fault-server.ts';
import { settled } from './job-settled.ts';
import { createPipelineHarness, type PipelineHarness } from './pipeline.ts';

export type ScriptedQueue = 'prices' | 'positions' | 'nfts';

/**
 * A pipeline of the test's own whose upstream answers every request of an operation with the body
 * the test sets (text: any bytes a service might send), through the real client, queue and
 * Postgres. In-request retries are off, so that each job attempt sends one request.
 */
export interface ScriptedPipeline {
  harness: PipelineHarness;
  upstream: FaultServer;
  /** The body each operation answers (status 200) from now on. */
  answer(queue: ScriptedQueue, body: string | Buffer): void;
  /** Runs one job to its end: its final state, its attempts and the requests it sent. */
  runJob(
    queue: ScriptedQueue,
    planned: PlannedJob<unknown>,
  ): Promise<{ state: string; attempts: number; requests: number }>;
  close(): Promise<void>;
}

export async function startScriptedPipeline(options: Record<string, string> = {}): Promise<ScriptedPipeline> {
  const upstream = await startFaultServer();
  const bodies: Record<ScriptedQueue, string | Buffer> = {
    prices: '{"data":[]}',
    positions: '{"data":[]}',
    nfts: '[]',
  };
  upstream.fallback((res, request) => {
    const queue = request.url.includes('/positions')
      ? 'positions'
      : request.url.includes('/nft-holding')
        ? 'nfts'
        : 'prices';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(bodies[queue]);
  });
  const harness = await createPipelineHarness({
    options: {
      UPSTREAM_BASE_URL: upstream.url,
      JOB_ATTEMPTS: '3',
      JOB_BACKOFF_MS: '50',
      UPSTREAM_MAX_RETRIES: '0',
      ...options,
    },
  });
  return {
    harness,
    upstream,
    answer(queue, body) {
      bodies[queue] = body;
    },
    async runJob(queue, planned) {
      const sentBefore = upstream.requests.length;
      const pool = createWorkerPool({
        ...harness,
        redis: harness.connection,
        client: harness.client,
        queueNames: [queue],
      });
      try {
        await enqueueJobs(harness, queue, [planned]);
        const { job, state } = await settled(harness.queues[queue], planned.opts.jobId);
        return { state, attempts: job.attemptsMade, requests: upstream.requests.length - sentBefore };
      } finally {
        await pool.close();
      }
    },
    async close() {
      await harness.close();
      await upstream.close();
    },
  };
}
