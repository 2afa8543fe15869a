import { addWatchedTokens } from '../../src/db/index.ts';
import { achievedRate, createBenchPipeline, UPSTREAM_RPS } from '../support/pipeline.ts';
import { benchCoinType, round, type Scenario } from '../support/scenario.ts';
import { spawnChaintap, stopChild } from '../support/worker-processes.ts';

const TOKENS = 200;
const DAYS = 30;
const FROM = new Date('2026-10-22T00:00:00Z');
/** Hourly, both ends included: 720 steps. */
const TO = new Date(FROM.getTime() + DAYS * 86_400_000 - 3_600_000);

/** `chaintap backfill prices` of 30 days hourly for 200 watched tokens, as a user runs it. */
export const backfillScenario: Scenario = {
  name: 'backfill',
  description: `${DAYS} days hourly for ${TOKENS} tokens through \`chaintap backfill prices\`: requests, wall time, rows per second`,
  async run({ services, log }) {
    const pipeline = await createBenchPipeline(services, 'backfill');
    try {
      const { database, simulator } = pipeline;
      await addWatchedTokens(
        database,
        Array.from({ length: TOKENS }, (_, i) => benchCoinType(i)),
      );
      await simulator.resetStats();
      log(`backfill: ${FROM.toISOString()} to ${TO.toISOString()} every hour, ${TOKENS} tokens`);
      const started = performance.now();
      const child = spawnChaintap(
        ['backfill', 'prices', '--from', FROM.toISOString(), '--to', TO.toISOString(), '--interval', '1h'],
        pipeline.env,
      );
      let output = '';
      child.stdout?.on('data', (chunk) => (output += chunk));
      child.stderr?.on('data', (chunk) => (output = (output + String(chunk)).slice(-20_000)));
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => void stopChild(child, 5_000), 600_000);
        child.once('exit', (exitCode) => {
          clearTimeout(timer);
          resolve(exitCode);
        });
      });
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) throw new Error(`chaintap backfill exited with ${code}: ${output}`);
      const [stored] = await database.sql<{ n: number }[]>`select count(*)::int as n from token_price_points`;
      const rate = achievedRate(await simulator.stats());
      const steps = DAYS * 24;
      return {
        scenario: 'backfill',
        figures: [
          {
            name: 'upstream requests',
            value: rate.requests,
            unit: '',
            target: { op: '==', value: steps * (TOKENS / 50) },
          },
          { name: '429s received', value: rate.rateLimited, unit: '', target: { op: '<=', value: 0 } },
          { name: 'achieved rate / limit', value: round(rate.perSecond / UPSTREAM_RPS), unit: '' },
          { name: 'wall time (process start to exit)', value: round(seconds, 1), unit: 's' },
          { name: 'prices stored', value: stored!.n, unit: '' },
          { name: 'rows per second', value: Math.round(stored!.n / seconds), unit: 'rows/s' },
        ],
        notes: [
          pipeline.simulator.priority,
          `\`chaintap backfill prices --from ${FROM.toISOString()} --to ${TO.toISOString()} --interval 1h\`, one process, UPSTREAM_RPS=${UPSTREAM_RPS}, UPSTREAM_CONCURRENCY=${pipeline.env.UPSTREAM_CONCURRENCY}`,
          'wall time includes starting the process (about 1.5 s); the simulated upstream has no price for about 1 token in 97',
        ],
      };
    } finally {
      await pipeline.close();
    }
  },
};
