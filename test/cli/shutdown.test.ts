import { afterAll, beforeAll, expect, it } from 'vitest';
import { sleep } from '../../src/runtime/sleep.ts';
import { produceTick } from '../../src/scheduler/producer.ts';
import { startWorker, waitFor, type ChaintapProcess } from '../support/fault-processes.ts';
import { redisServerAvailable, startOwnRedis, type OwnRedis } from '../support/fault-redis-server.ts';
import { FAULT_TICK, faultWatchlist, seedWatchlist } from '../support/fault-scenario.ts';
import { createPipelineHarness, type PipelineHarness, producerDeps } from '../support/pipeline.ts';

// Redis is stopped here, so this file runs a redis-server of its own; the shared one is never touched.
if (!redisServerAvailable())
  throw new Error('this test needs the redis-server binary on PATH (apt-get install redis-server)');

const GRACE_MS = 2_000;
// How long the worker pool gives its forced close after the grace period (src/worker/workers.ts).
const FORCED_CLOSE_MS = 5_000;
// The process exits at most 2 s after its command has finished (src/cli/main.ts), plus a margin.
const EXIT_AFTER_STOPPED_MS = 5_000;
// The one job's answer takes longer than the grace period: its worker cannot close before the grace
// period ends (an idle worker may close quickly even without Redis, which would test nothing).
const ANSWER_LATENCY_MS = GRACE_MS + 30_000;
let redis: OwnRedis;
let harness: PipelineHarness;
let worker: ChaintapProcess | undefined;

beforeAll(async () => {
  redis = await startOwnRedis();
  harness = await createPipelineHarness({
    options: { REDIS_URL: redis.url, SHUTDOWN_GRACE_MS: String(GRACE_MS) },
    simulator: { faults: { latencyMs: ANSWER_LATENCY_MS } },
  });
  await seedWatchlist(harness.database, faultWatchlist({ tokens: 1, addresses: 0 }));
  // The test's own connection and queue handles see Redis go too.
  harness.connection.on('error', () => undefined);
  for (const queue of Object.values(harness.queues)) queue.on('error', () => undefined);
});

afterAll(async () => {
  await worker?.stop('SIGKILL');
  // Back up, so that the harness can clean its queues away.
  await redis?.start();
  await harness?.close();
  await redis?.destroy();
});

const logged = (line: string) => JSON.parse(line) as { msg: string; time: string; url?: string };

it('SIGTERM with Redis gone: the workers that cannot close are bounded by the grace period, the closes after them still run, and the process exits', async () => {
  worker = await startWorker('worker', harness.env);
  const { url } = logged(await worker.waitForLine(/"msg":"ops server listening/));
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  const producer = producerDeps(harness);
  await produceTick(producer, 'prices', FAULT_TICK);
  await waitFor('the prices job asking the upstream', async () => harness.simulator.stats().requests >= 1, 20_000);
  await redis.shutdown();
  await worker.waitForLine(/Redis connection error/);

  const signalledAt = Date.now();
  worker.child.kill('SIGTERM');
  const stopped = logged(await worker.waitForLine(/"msg":"stopped"/, GRACE_MS + FORCED_CLOSE_MS + 20_000));
  // And the process exits, although BullMQ's timers of the workers closed by force are still running.
  const exit = await Promise.race([worker.exited, sleep(EXIT_AFTER_STOPPED_MS).then(() => 'still running')]);
  expect(exit).toEqual({ code: 0, signal: null });
  const graceOver = worker.lines.filter((line) => /grace period over/.test(line)).map(logged);
  expect(graceOver).toHaveLength(1);
  expect(Date.parse(graceOver[0]!.time) - signalledAt).toBeGreaterThanOrEqual(GRACE_MS - 100);
  expect(Date.parse(stopped.time)).toBeGreaterThanOrEqual(Date.parse(graceOver[0]!.time));
  // The ops server closes after the workers: it no longer answers.
  await expect(fetch(`${url}/healthz`)).rejects.toThrow();
});
