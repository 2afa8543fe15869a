import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses } from '../../src/db/index.ts';
import { produceTick } from '../../src/scheduler/producer.ts';
import { waitForTicks } from '../../src/cli/run-cycle.ts';
import { spawnCli } from '../support/cli.ts';
import { createPipelineHarness, type PipelineHarness, producerDeps } from '../support/pipeline.ts';

const RPS = 20;
const addresses = Array.from({ length: 40 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, 'a')}`);

let harness: PipelineHarness;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  harness = await createPipelineHarness({
    options: { UPSTREAM_RPS: String(RPS), UPSTREAM_CONCURRENCY: '8', OPS_PORT: '0' },
    // The simulator answers 429 past a sliding window just above the limit: a burst would show, while
    // the few milliseconds of arrival jitter of a loaded machine do not.
    simulator: { faults: { rateLimit: RPS + 2, latencyMs: 30 } },
  });
  await addWatchedAddresses(harness.database, addresses, {});
});
afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await harness?.close();
});

function startWorker(): Promise<ChildProcess> {
  const child = spawnCli(['worker'], harness.env);
  workers.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stderr?.on('data', (chunk) => {
      output += chunk;
      if (output.includes('chaintap running')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${output}`)));
  });
}

describe('two worker processes share one upstream rate limit', () => {
  it('never exceed UPSTREAM_RPS together, and finish every job', async () => {
    await Promise.all([startWorker(), startWorker()]);
    const tick = new Date('2026-11-21T12:00:00Z');
    const producer = producerDeps(harness);
    const started = Date.now();
    await produceTick(producer, 'positions', tick);
    await produceTick(producer, 'nfts', tick);
    const complete = await waitForTicks(producer, {
      streams: [
        { stream: 'positions', tick },
        { stream: 'nfts', tick },
      ],
      queues: ['positions', 'nfts'],
    });
    const seconds = (Date.now() - started) / 1000;
    expect(complete).toBe(true);

    const stats = harness.simulator.stats();
    expect(stats.byStatus['429'] ?? 0).toBe(0);
    expect(stats.requests).toBe(80);
    // Paced, not burst: no trailing second went past the simulator's window (no 429 above; the limit
    // and two for arrival jitter: a slow machine's CI saw 22), and over the whole cycle the two
    // processes together stayed under the limit.
    expect(80 / seconds).toBeLessThanOrEqual(RPS * 1.02);
    const [runs] = await harness.database
      .sql`select count(*) filter (where status = 'succeeded')::int as ok, count(*)::int as all from ingestion_runs`;
    expect(runs).toEqual({ ok: 80, all: 80 });
  });
});
