/**
 * What harvesting the prices of positions answers costs a positions job (not a test: time belongs in
 * benchmarks):
 *   node bench/tools/harvest-cost.ts [addresses] [ticks]
 * The same positions jobs (real-shape answers of the simulated upstream, 15 minutes apart, values
 * and token prices of the minute) are written the way a worker writes them (parse, normalize,
 * `commitJob` with the raw body) into two fresh databases, job by job in turn: one with the rows a
 * job wrote before issue 30 (`writePositions`), one with the harvested prices too (`writePositions` +
 * `writeTokenPrices`). Prints per job the median and mean time of the harvest inside the normalizer
 * and of the commit on each side, the price points harvested per job, and the rows and bytes
 * `token_price_points` and `token_catalog` hold at the end.
 */
import { commitJob, writePositions, writeTokenPrices } from '../../src/db/index.ts';
import type { NormalizedPositions } from '../../src/db/schema/rows.ts';
import { normalizePositions } from '../../src/normalize/index.ts';
import { harvestPositionPrices } from '../../src/normalize/harvested-prices.ts';
import { priceWindow } from '../../src/normalize/price-plausibility.ts';
import { DriftLog } from '../../src/normalize/schema-drift.ts';
import { simulatedPositions } from '../../src/simulator/positions.ts';
import { positionsResponse } from '../../src/upstream/schemas.ts';
import { benchAddress } from '../support/scenario.ts';
import { benchServices, createBenchDatabase, type BenchDatabase } from '../support/services.ts';

const ADDRESSES = Number(process.argv[2] ?? 100);
const TICKS = Number(process.argv[3] ?? 8);
const START = Date.UTC(2026, 10, 21, 12);
const WORLD = { realShapes: true, valuationMs: 60_000 };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const ms = (values: number[]) => `median ${median(values).toFixed(2)} ms, mean ${mean(values).toFixed(2)} ms`;

async function commit(
  database: BenchDatabase,
  job: { owner: string; tick: Date; body: string; rows: NormalizedPositions },
  harvest: boolean,
): Promise<number> {
  const { owner, tick, body, rows } = job;
  const started = performance.now();
  await commitJob(database, {
    run: {
      jobId: `positions-${owner}-${tick.getTime()}`,
      dataset: 'positions',
      target: owner,
      tick,
      attempts: 1,
      startedAt: tick,
    },
    raw: [
      {
        dataset: 'positions',
        endpoint: `/v2/address/${owner}/positions`,
        target: owner,
        tick,
        httpStatus: 200,
        body,
        receivedAt: tick,
      },
    ],
    httpStatus: 200,
    write: async (tx) => ({
      ...(await writePositions(tx, rows, { owner, snapshotAt: tick, complete: true })),
      ...(harvest ? await writeTokenPrices(tx, rows.harvested) : {}),
    }),
  });
  return performance.now() - started;
}

async function main(): Promise<void> {
  const services = benchServices();
  const before = await createBenchDatabase(services, 'harvest_before', 2);
  const after = await createBenchDatabase(services, 'harvest_after', 2);
  try {
    const times = { harvest: [] as number[], normalize: [] as number[], before: [] as number[], after: [] as number[] };
    let points = 0;
    for (let t = 0; t < TICKS; t++) {
      const tick = new Date(START + t * 15 * 60_000);
      const fetchedAt = new Date(tick.getTime() + 2_000);
      for (let a = 0; a < ADDRESSES; a++) {
        const owner = benchAddress(a);
        const body = JSON.stringify({ data: simulatedPositions(owner, tick.getTime(), undefined, WORLD) });
        const parsed = positionsResponse.parse(JSON.parse(body));
        let started = performance.now();
        const rows = normalizePositions(parsed, { owner, snapshotAt: tick, fetchedAt });
        times.normalize.push(performance.now() - started);
        // The harvest alone, as the normalizer runs it on each element.
        const harvest = { window: priceWindow({ slot: tick, fetchedAt }), fetchedAt, seen: new Set<string>() };
        started = performance.now();
        for (const element of parsed.data)
          harvestPositionPrices(element as Record<string, unknown>, new DriftLog(), harvest);
        times.harvest.push(performance.now() - started);
        points += rows.harvested.prices.length;
        const job = { owner, tick, body, rows };
        // In turn, so that the load of a shared machine falls on both alike.
        if ((t * ADDRESSES + a) % 2 === 0) {
          times.before.push(await commit(before, job, false));
          times.after.push(await commit(after, job, true));
        } else {
          times.after.push(await commit(after, job, true));
          times.before.push(await commit(before, job, false));
        }
      }
    }
    const jobs = ADDRESSES * TICKS;
    await after.sql`vacuum analyze token_price_points`;
    await after.sql`vacuum analyze token_catalog`;
    const [stored] = await after.sql<{ rows: number; heap: string; indexes: string; tokens: number }[]>`
      select (select count(*)::int from token_price_points) as rows,
             (select sum(pg_table_size(i.inhrelid)) from pg_inherits i where i.inhparent = 'token_price_points'::regclass) as heap,
             (select sum(pg_indexes_size(i.inhrelid)) from pg_inherits i where i.inhparent = 'token_price_points'::regclass) as indexes,
             (select count(*)::int from token_catalog) as tokens`;
    console.log(`${jobs} positions jobs (${ADDRESSES} addresses x ${TICKS} ticks, real shapes, prices of the minute)`);
    console.log(`normalize, whole: ${ms(times.normalize)}; of which the harvest: ${ms(times.harvest)}`);
    console.log(`commit before (positions only): ${ms(times.before)}`);
    console.log(`commit after (positions + harvested prices): ${ms(times.after)}`);
    console.log(
      `harvested: ${(points / jobs).toFixed(1)} price points per job, ${points} in all; stored ${stored!.rows} rows ` +
        `(${(stored!.rows / TICKS).toFixed(1)} per tick) of ${stored!.tokens} tokens; heap ${(Number(stored!.heap) / stored!.rows).toFixed(1)} B + ` +
        `index ${(Number(stored!.indexes) / stored!.rows).toFixed(1)} B per row`,
    );
  } finally {
    await before.drop();
    await after.drop();
  }
}

await main();
