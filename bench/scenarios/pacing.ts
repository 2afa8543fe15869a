import { parseUpstreamRate } from '../../src/config/upstream-rate.ts';
import { addWatchedAddresses } from '../../src/db/index.ts';
import type { WindowKind } from '../../src/simulator/request-window.ts';
import { achievedRate, BENCH_API_KEY, createBenchPipeline, WORLD_TIME } from '../support/pipeline.ts';
import type { Figure } from '../support/report.ts';
import { runAddressTick } from '../support/address-tick.ts';
import { benchAddress, MB, round, type Scenario } from '../support/scenario.ts';
import { simulatorControl } from '../support/simulator-control.ts';
import { tickRuns } from '../support/tick-runs.ts';
import { warmUpWorkers } from '../support/warm-up.ts';
import { startWorkers } from '../support/worker-processes.ts';

/** One pacing run: a quota, a watchlist, and how the strict upstream counts against its limit. */
interface Pacing {
  name: string;
  /** UPSTREAM_RATE of the workers, and the simulator's limit over the same period. */
  quota: string;
  addresses: number;
  window: WindowKind;
  /** Least achieved rate / quota. */
  target: number;
  /** Addresses of a tick run first (fresh workers warmed up), for rates where start-up would show. */
  warmUp: number;
}

/**
 * The pacer against a strict upstream (the simulator in a process of its own, 50 ms latency): one
 * positions and one NFT tick of every watched address through two `chaintap worker` processes, the
 * simulator answering 429 past exactly the quota in its window. Figures: achieved rate / quota over
 * the span from the first request to the last, 429s, the workers' peak RSS, jobs succeeded.
 */
function pacingScenario(pacing: Pacing): Scenario {
  const rate = parseUpstreamRate(pacing.quota);
  const requests = 2 * pacing.addresses;
  return {
    name: pacing.name,
    description: `${pacing.addresses.toLocaleString('en-US')} addresses (${requests.toLocaleString('en-US')} requests) at UPSTREAM_RATE=${rate.label} against a ${pacing.window}-window limit of the same rate: rate use (>= ${pacing.target}), 429s, peak RSS`,
    async run({ services, log }) {
      const pipeline = await createBenchPipeline(services, pacing.name, {
        // UPSTREAM_RATE replaces the pipeline's UPSTREAM_RPS (empty counts as unset).
        UPSTREAM_RPS: '',
        UPSTREAM_RATE: rate.label,
      });
      try {
        const { database, simulator, queues } = pipeline;
        await simulatorControl(simulator.url, BENCH_API_KEY).setFaults({
          rateLimit: rate.requests,
          rateLimitWindowMs: rate.periodMs,
          rateLimitWindow: pacing.window,
        });
        for (let i = 0; i < pacing.addresses; i += 1000) {
          const count = Math.min(1000, pacing.addresses - i);
          await addWatchedAddresses(
            database,
            Array.from({ length: count }, (_, j) => benchAddress(i + j)),
            {},
          );
        }
        const workers = await startWorkers(2, pipeline.env, queues, ['positions', 'nfts']);
        const tick = new Date(WORLD_TIME);
        let peakRss: number[];
        try {
          if (pacing.warmUp > 0) {
            log(`${pacing.name}: warming the workers up with ${pacing.warmUp} addresses`);
            await warmUpWorkers(pipeline, pacing.warmUp, new Date(WORLD_TIME - 5 * 60_000));
          }
          await simulator.resetStats();
          log(
            `${pacing.name}: ${requests} requests at ${rate.label}, about ${Math.round((requests / rate.rps) * 1.04)} s`,
          );
          await runAddressTick(pipeline, workers, tick);
          peakRss = await workers.peakRss();
        } finally {
          await workers.stop();
        }
        const stats = await simulator.stats();
        const achieved = achievedRate(stats);
        const runs = await tickRuns(database.sql, ['positions', 'nfts'], tick);
        const figures: Figure[] = [
          {
            name: 'achieved rate / quota',
            value: round(achieved.perSecond / rate.rps),
            unit: '',
            target: { op: '>=', value: pacing.target },
          },
          { name: '429s received', value: achieved.rateLimited, unit: '', target: { op: '<=', value: 0 } },
          {
            name: 'peak RSS, largest worker',
            value: round(Math.max(...peakRss) / MB, 0),
            unit: 'MB',
            target: { op: '<=', value: 256 },
          },
          { name: 'jobs succeeded', value: runs.succeeded, unit: '', target: { op: '==', value: requests } },
          { name: 'upstream requests', value: achieved.requests, unit: '' },
          { name: 'achieved requests per second', value: round(achieved.perSecond, 3), unit: 'req/s' },
          { name: 'span, first to last request', value: round(achieved.spanSeconds, 1), unit: 's' },
          { name: 'most requests in a trailing second', value: achieved.maxInTrailingSecond, unit: '' },
        ];
        return {
          scenario: pacing.name,
          figures,
          notes: [
            simulator.priority,
            `two \`chaintap worker\` processes (UPSTREAM_RATE=${rate.label}, UPSTREAM_CONCURRENCY=${pipeline.env.UPSTREAM_CONCURRENCY}); the simulator answers 429 past ${rate.requests} requests in a ${pacing.window} window of ${rate.periodMs} ms, 50 ms latency`,
            `rate: (requests - 1) / span from the first request to the last, at the simulator; the pacer's ceiling is 1 / 1.04 = 0.962 of the quota${pacing.warmUp > 0 ? `; the workers ran a tick of ${pacing.warmUp} addresses first (warm-up, not counted)` : ''}`,
            `statuses ${JSON.stringify(stats.byStatus)}; peak RSS per worker ${peakRss.map((rss) => `${round(rss / MB, 0)} MB`).join(', ')}`,
          ],
        };
      } finally {
        await pipeline.close();
      }
    },
  };
}

export const pacing100Scenario = pacingScenario({
  name: 'pace-100rps',
  quota: '100/s',
  addresses: 1_000,
  window: 'closed',
  target: 0.9,
  warmUp: 100,
});

export const pacing2Scenario = pacingScenario({
  name: 'pace-2rps',
  quota: '2/s',
  addresses: 120,
  window: 'closed',
  target: 0.95,
  warmUp: 0,
});

export const pacing40MinScenario = pacingScenario({
  name: 'pace-40min',
  quota: '40/min',
  addresses: 60,
  window: 'closed',
  target: 0.95,
  warmUp: 0,
});

export const pacing40MinFixedScenario = pacingScenario({
  name: 'pace-40min-fixed',
  quota: '40/min',
  addresses: 60,
  window: 'fixed',
  target: 0.95,
  warmUp: 0,
});
