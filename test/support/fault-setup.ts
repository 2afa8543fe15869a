import { afterAll, beforeAll } from 'vitest';
import { produceTick } from '../../src/scheduler/producer.ts';
import type { SimulatorOptions } from '../../src/simulator/index.ts';
import { startWorker, type ChaintapProcess } from './fault-processes.ts';
import { startOwnRedis, type OwnRedis } from './fault-redis-server.ts';
import {
  ALL_DATASETS,
  FAULT_TICK,
  faultWatchlist,
  finishedJobs,
  jobCount,
  referenceRun,
  seedWatchlist,
  type Reference,
} from './fault-scenario.ts';
import { createPipelineHarness, producerDeps, type PipelineHarness } from './pipeline.ts';

/** The watchlist of the data fault scenarios: 120 tokens (3 price jobs) and 60 addresses. */
export const FAULT_WATCHLIST = faultWatchlist({ tokens: 120, addresses: 60 });

export interface FaultScenario {
  /** The fault-free run of FAULT_TICK over FAULT_WATCHLIST. */
  reference: Reference;
  harness: PipelineHarness;
  /** The scenario's own redis-server, when it asked for one (`ownRedis`). */
  redis: OwnRedis | undefined;
  /** Jobs of one tick of FAULT_WATCHLIST over the three datasets. */
  jobs: number;
  /** Starts a `chaintap worker` on the scenario's settings; it is SIGKILLed after the file if still running. */
  startWorker(name: string): Promise<ChaintapProcess>;
  /** The workers started so far. */
  workers: ChaintapProcess[];
  /** Enqueues FAULT_TICK of every dataset, as the scheduler would. */
  produceTick(): Promise<void>;
  /** Jobs of FAULT_TICK finished so far (succeeded, failed for good or superseded). */
  finished(): Promise<number>;
}

/**
 * What every data fault scenario (test/faults) sets up the same way, registered as this file's (or
 * describe block's) beforeAll and afterAll: the reference run, a pipeline harness with the
 * scenario's settings and simulator faults, seeded with FAULT_WATCHLIST, and, with `ownRedis`, a
 * redis-server of its own (append-only file on) that the scenario may stop; at the end every worker
 * still running is killed, the harness closed and that server removed. Its fields are set once the
 * beforeAll has run.
 */
export function useFaultScenario(settings: {
  options: Record<string, string>;
  simulator?: Partial<SimulatorOptions>;
  ownRedis?: boolean;
}): FaultScenario {
  const scenario: FaultScenario = {
    reference: undefined as unknown as Reference,
    harness: undefined as unknown as PipelineHarness,
    redis: undefined,
    jobs: jobCount(FAULT_WATCHLIST),
    workers: [],
    async startWorker(name) {
      const worker = await startWorker(name, scenario.harness.env);
      scenario.workers.push(worker);
      return worker;
    },
    async produceTick() {
      const producer = producerDeps(scenario.harness);
      for (const dataset of ALL_DATASETS) await produceTick(producer, dataset, FAULT_TICK);
    },
    finished: () => finishedJobs(scenario.harness),
  };

  beforeAll(async () => {
    scenario.reference = await referenceRun(FAULT_WATCHLIST);
    if (settings.ownRedis) scenario.redis = await startOwnRedis();
    scenario.harness = await createPipelineHarness({
      options: { ...settings.options, ...(scenario.redis ? { REDIS_URL: scenario.redis.url } : {}) },
      simulator: settings.simulator,
    });
    await seedWatchlist(scenario.harness.database, FAULT_WATCHLIST);
    // The test's own queue handles see a Redis stopped or full too; the workers under test log it themselves.
    if (scenario.redis) for (const queue of Object.values(scenario.harness.queues)) queue.on('error', () => undefined);
  });

  afterAll(async () => {
    await Promise.all(scenario.workers.map((worker) => worker.stop('SIGKILL')));
    await scenario.harness?.close();
    await scenario.redis?.destroy();
  });

  return scenario;
}
