import { addWatchedTokens } from '../../src/db/index.ts';
import { produceTick } from '../../src/scheduler/producer.ts';
import { waitForTicks } from '../../src/cli/run-cycle.ts';
import { achievedRate, createBenchPipeline, UPSTREAM_RPS, WORLD_TIME } from '../support/pipeline.ts';
import { benchCoinType, round, type Scenario } from '../support/scenario.ts';
import { tickRuns } from '../support/tick-runs.ts';
import { startWorkers } from '../support/worker-processes.ts';

const TOKENS = 5_000;

/** One price tick of 5,000 watched tokens through two worker processes. */
export const pricesScenario: Scenario = {
  name: 'prices',
  description: `${TOKENS.toLocaleString('en-US')} watched tokens, one tick: upstream requests and time from the tick to every row committed`,
  async run({ services, log }) {
    const pipeline = await createBenchPipeline(services, 'prices');
    try {
      const { database, simulator, queues } = pipeline;
      for (let i = 0; i < TOKENS; i += 1000) {
        await addWatchedTokens(
          database,
          Array.from({ length: Math.min(1000, TOKENS - i) }, (_, j) => benchCoinType(i + j)),
        );
      }
      const workers = await startWorkers(2, pipeline.env, queues, ['prices']);
      let peak: number[];
      const tick = new Date(WORLD_TIME);
      const started = new Date();
      try {
        await simulator.resetStats();
        log(`prices: one tick of ${TOKENS} tokens`);
        await produceTick(pipeline, 'prices', tick);
        const complete = await waitForTicks(pipeline, { streams: [{ stream: 'prices', tick }], queues: ['prices'] });
        if (!complete) throw new Error(`the price tick did not complete: ${workers.output()}`);
        peak = await workers.peakRss();
      } finally {
        await workers.stop();
      }
      const runs = await tickRuns(database.sql, ['prices'], tick);
      const [stored] = await database.sql<{ n: number }[]>`select count(*)::int as n from token_price_points`;
      const rate = achievedRate(await simulator.stats());
      const seconds = (runs.lastCommitAt!.getTime() - started.getTime()) / 1000;
      return {
        scenario: 'prices',
        figures: [
          { name: 'upstream requests', value: rate.requests, unit: '', target: { op: '==', value: TOKENS / 50 } },
          { name: '429s received', value: rate.rateLimited, unit: '', target: { op: '<=', value: 0 } },
          { name: 'tick to all rows committed', value: round(seconds, 2), unit: 's' },
          { name: 'prices stored', value: stored!.n, unit: '' },
          { name: 'rows written per second', value: Math.round(runs.rowsWritten / seconds), unit: 'rows/s' },
          { name: 'jobs succeeded', value: runs.succeeded, unit: '', target: { op: '==', value: TOKENS / 50 } },
          {
            name: 'peak RSS, largest worker',
            value: round(Math.max(...peak) / 2 ** 20, 0),
            unit: 'MB',
            target: { op: '<=', value: 256 },
          },
        ],
        notes: [
          pipeline.simulator.priority,
          `UPSTREAM_RPS=${UPSTREAM_RPS}, two worker processes, simulated upstream with 50 ms latency enforcing ${UPSTREAM_RPS}/s`,
          'timed from the producer enqueueing the tick to the last job commit (ingestion_runs.finished_at)',
          'the simulated upstream leaves about 1 token in 97 without a price (reported as missing, not stored)',
        ],
      };
    } finally {
      await pipeline.close();
    }
  },
};
