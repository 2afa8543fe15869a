import pLimit from 'p-limit';
import { compactThinnedPartitions } from '../../src/db/compact-partitions.ts';
import { downsampleSnapshots } from '../../src/db/downsample.ts';
import {
  commitJob,
  compactPriceIndexes,
  ensurePartitions,
  withTransaction,
  writeNftHoldings,
  writePositions,
  writeTokenPrices,
} from '../../src/db/index.ts';
import { normalizeNftHoldings, normalizePositions } from '../../src/normalize/index.ts';
import { simulatedNftHoldings, simulatedPositions } from '../../src/simulator/index.ts';
import { nftHoldingsResponse, positionsResponse } from '../../src/upstream/schemas.ts';
import { normalizedPrices, priceRows, PRICES_START } from '../support/price-rows.ts';
import type { Figure } from '../support/report.ts';
import { benchAddress, round, type Scenario } from '../support/scenario.ts';
import { createBenchDatabase, type BenchDatabase } from '../support/services.ts';
import { tablesBytes, type TableBytes } from '../support/storage-size.ts';

const DAY = 86_400_000;
const KB = 1024;
const ADDRESSES = 24;
const DAYS = 2;
/** Default schedules: positions every 15 minutes, NFTs every hour. */
const POSITIONS_EVERY = 15 * 60_000;
const NFTS_EVERY = 60 * 60_000;
/** A day of history, in the middle of a month so that it falls in one partition. */
const START = Date.UTC(2026, 8, 10);
/**
 * Positions and collections that live 2 to 8 days, valued at the prices of the minute. The
 * simulator's default epoch (15 minutes) replaces each position every 30 minutes to 2 hours, which
 * multiplies the series a downsampled day keeps far beyond what DeFi positions do; its values then
 * stay constant per epoch, so that with a day-long epoch every answer of a day would be the same.
 */
// Answers shaped as the real service sends them (upstream-reality.md), as in the other scenarios.
const WORLD = { epochMs: DAY, valuationMs: 60_000, realShapes: true };
const PRICE_TOKENS = 1_000;
const PRICE_MINUTES = 100;
const WRITERS = 4;

const REFRESHES = ['position_refreshes', 'nft_refreshes'];
const HISTORY = ['position_snapshot_points', 'nft_holding_snapshots', ...REFRESHES];
const STATE = ['positions', 'position_tokens', 'protocols', 'nft_tokens', 'nft_collections'];
/**
 * Rows counted: the data contract's tables and views of the history (amounts and farming entries are part of a position
 * snapshot's row).
 */
const COUNTED = [
  'position_snapshots',
  'position_amounts',
  'position_farming',
  'position_refreshes',
  'nft_holding_snapshots',
  'nft_refreshes',
];
const OPERATIONS = ['ingestion_runs', 'dataset_watermarks', 'raw_responses', 'raw_body_dictionaries'];
const TABLES = [...HISTORY, ...STATE, ...OPERATIONS];

/**
 * Writes ADDRESSES x DAYS of positions and NFT ticks the way a worker does (answer, normalize, one transaction per
 * job).
 */
async function writeHistory(database: BenchDatabase): Promise<number> {
  const limit = pLimit(WRITERS);
  let jobs = 0;
  for (let time = START; time < START + DAYS * DAY; time += POSITIONS_EVERY) {
    const tick = new Date(time);
    await Promise.all(
      Array.from({ length: ADDRESSES }, (_, i) =>
        limit(async () => {
          const owner = benchAddress(i);
          const positions = JSON.stringify({ data: simulatedPositions(owner, time, undefined, WORLD) });
          const rows = normalizePositions(positionsResponse.parse(JSON.parse(positions)), {
            owner,
            snapshotAt: tick,
            fetchedAt: tick,
          });
          await commitJob(database, {
            run: {
              jobId: `positions-${owner}-${time}`,
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
                body: positions,
                receivedAt: tick,
              },
            ],
            httpStatus: 200,
            write: (tx) => writePositions(tx, rows, { owner, snapshotAt: tick, complete: true }),
          });
          jobs++;
          if (time % NFTS_EVERY !== 0) return;
          const nfts = JSON.stringify(simulatedNftHoldings(owner, time, undefined, WORLD));
          const holdings = normalizeNftHoldings(nftHoldingsResponse.parse(JSON.parse(nfts)), {
            owner,
            snapshotAt: tick,
            fetchedAt: tick,
          });
          await commitJob(database, {
            run: { jobId: `nfts-${owner}-${time}`, dataset: 'nfts', target: owner, tick, attempts: 1, startedAt: tick },
            raw: [
              {
                dataset: 'nfts',
                endpoint: `/v2/address/${owner}/nft-holding`,
                target: owner,
                tick,
                httpStatus: 200,
                body: nfts,
                receivedAt: tick,
              },
            ],
            httpStatus: 200,
            write: (tx) => writeNftHoldings(tx, holdings, { owner, snapshotAt: tick, scopeChain: 'ALL' }),
          });
          jobs++;
        }),
      ),
    );
  }
  return jobs;
}

/** Bytes per table grown since `baseline`, over the given tables. */
function grown(baseline: Record<string, TableBytes>, now: Record<string, TableBytes>, tables: string[]): number {
  return tables.reduce((sum, table) => sum + now[table]!.total - baseline[table]!.total, 0);
}

async function vacuum(database: BenchDatabase, tables: string[], full: boolean): Promise<void> {
  for (const table of tables) await database.sql.unsafe(`vacuum ${full ? '(full, analyze)' : '(analyze)'} ${table}`);
}

async function rowCounts(database: BenchDatabase, tables: string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables)
    counts[table] = (await database.sql.unsafe(`select count(*)::int as n from ${table}`))[0]!.n as number;
  return counts;
}

interface PriceBytes {
  rows: number;
  /** Per row as written, and after the maintenance job's daily rebuild of the price key index. */
  written: TableBytes;
  compacted: TableBytes;
}

/** Bytes per stored price, written as live ticks are: one transaction per price job of 50 tokens. */
async function measurePrices(database: BenchDatabase, log: (message: string) => void): Promise<PriceBytes> {
  log(`storage: ${PRICE_TOKENS} tokens x ${PRICE_MINUTES} minutes of prices, one write per 50-token price job`);
  const limit = pLimit(WRITERS);
  for (let minute = 0; minute < PRICE_MINUTES; minute++) {
    await Promise.all(
      Array.from({ length: PRICE_TOKENS / 50 }, (_, batch) =>
        limit(() =>
          withTransaction(database, 'prices.write', (tx) =>
            writeTokenPrices(tx, normalizedPrices(priceRows(batch * 50, 50, minute, 1))),
          ),
        ),
      ),
    );
  }
  await vacuum(database, ['token_price_points'], false);
  const written = (await tablesBytes(database.sql, ['token_price_points'])).token_price_points!;
  await compactPriceIndexes(database, new Date(PRICES_START));
  const compacted = (await tablesBytes(database.sql, ['token_price_points'])).token_price_points!;
  return { rows: (await rowCounts(database, ['token_price_points'])).token_price_points!, written, compacted };
}

/** Bytes on disk per stored price row, and per watched address per day at full resolution and downsampled. */
export const storageScenario: Scenario = {
  name: 'storage',
  description:
    'bytes per stored price; bytes per watched address per day at full resolution, hourly and daily (downsampled)',
  async run({ services, log }) {
    const database = await createBenchDatabase(services, 'storage', WRITERS);
    try {
      await ensurePartitions(database, { from: new Date(PRICES_START), to: new Date(PRICES_START) });
      const prices = await measurePrices(database, log);

      await ensurePartitions(database, { from: new Date(START), to: new Date(START + DAYS * DAY) });
      // Not vacuumed while empty: a VACUUM or ANALYZE then records them as empty, and plans cached on
      // that (the foreign-key checks') scan whole partitions once they fill (autovacuum is off here).
      const baseline = await tablesBytes(database.sql, TABLES);
      log(
        `storage: ${ADDRESSES} addresses x ${DAYS} days of positions (every 15 min) and NFTs (hourly), 10 positions and 5 collections each`,
      );
      const jobs = await writeHistory(database);
      await vacuum(database, TABLES, false);
      const full = await tablesBytes(database.sql, TABLES);
      const fullRows = await rowCounts(database, COUNTED);
      const addressDays = ADDRESSES * DAYS;
      const perAddressDay = (bytes: number) => bytes / addressDays / KB;

      // As the maintenance job does it: thin, then rewrite the past month's partitions once wholly in a tier.
      const settings = { fullResolutionDays: 7, hourlyDays: 90 };
      const monthEnd = Date.UTC(new Date(START).getUTCFullYear(), new Date(START).getUTCMonth() + 1, 1);
      const tiers: { tier: string; now: number }[] = [
        { tier: 'hourly (7 to 90 days old)', now: monthEnd + 8 * DAY },
        { tier: 'daily (older than 90 days)', now: monthEnd + 91 * DAY },
      ];
      const downsampled: {
        tier: string;
        seconds: number;
        compactionSeconds: number;
        uncompacted: number;
        compacted: number;
        rows: Record<string, number>;
      }[] = [];
      for (const { tier, now } of tiers) {
        log(`storage: downsampling as of ${new Date(now).toISOString()} (${tier})`);
        const started = performance.now();
        await downsampleSnapshots(database, { ...settings, now: new Date(now) });
        const seconds = (performance.now() - started) / 1000;
        await vacuum(database, HISTORY, false);
        const uncompacted = grown(baseline, await tablesBytes(database.sql, HISTORY), HISTORY);
        const compactionStarted = performance.now();
        const compaction = await compactThinnedPartitions(database, {
          ...settings,
          thinnedAt: new Date(now),
          lockTimeoutMs: 5_000,
          horizonTimeoutMs: 60_000,
        });
        if (compaction.busy.length > 0) throw new Error(`compaction left ${compaction.busy.join(', ')}`);
        const compactionSeconds = (performance.now() - compactionStarted) / 1000;
        // The refresh records are not partitioned: new rows reuse their freed space, so what they hold is their live
        // rows.
        await vacuum(database, REFRESHES, true);
        const compacted = grown(baseline, await tablesBytes(database.sql, HISTORY), HISTORY);
        downsampled.push({
          tier,
          seconds,
          compactionSeconds,
          uncompacted,
          compacted,
          rows: await rowCounts(database, COUNTED),
        });
      }

      const history = grown(baseline, full, HISTORY);
      const figures: Figure[] = [
        {
          name: 'bytes per stored price (heap + indexes), after the daily index rebuild',
          value: round(prices.compacted.total / prices.rows, 1),
          unit: 'B',
          target: { op: '<=', value: 100 },
        },
        {
          name: 'per address per day, full resolution: everything written',
          value: round(perAddressDay(grown(baseline, full, TABLES)), 1),
          unit: 'KB',
          target: { op: '<=', value: 1024 },
        },
        {
          name: 'per address per day, daily tier: snapshot history on disk after the maintenance job',
          value: round(perAddressDay(downsampled[1]!.compacted), 1),
          unit: 'KB',
          target: { op: '<=', value: 50 },
        },
        {
          name: 'per address per day, full resolution: snapshot history',
          value: round(perAddressDay(history), 1),
          unit: 'KB',
        },
        {
          name: 'per address per day, full resolution: raw responses and their dictionaries (kept 14 days)',
          value: round(perAddressDay(grown(baseline, full, ['raw_responses', 'raw_body_dictionaries'])), 1),
          unit: 'KB',
        },
        {
          name: 'per address per day, full resolution: ingestion_runs and watermarks',
          value: round(perAddressDay(grown(baseline, full, ['ingestion_runs', 'dataset_watermarks'])), 1),
          unit: 'KB',
        },
        {
          name: 'per address per day, full resolution: current state (positions, NFTs held)',
          value: round(perAddressDay(grown(baseline, full, STATE)), 1),
          unit: 'KB',
        },
      ];
      for (const tier of downsampled) {
        figures.push(
          {
            name: `per address per day, ${tier.tier}: snapshot history on disk after the maintenance job`,
            value: round(perAddressDay(tier.compacted), 1),
            unit: 'KB',
          },
          {
            name: `per address per day, ${tier.tier}: snapshot history thinned, before the partition rewrite`,
            value: round(perAddressDay(tier.uncompacted), 1),
            unit: 'KB',
          },
          { name: `downsampling to ${tier.tier.split(' ')[0]}: time`, value: round(tier.seconds, 2), unit: 's' },
          {
            name: `partition rewrite after thinning to ${tier.tier.split(' ')[0]}: time`,
            value: round(tier.compactionSeconds, 2),
            unit: 's',
          },
        );
      }
      figures.push(
        {
          name: 'bytes per stored price, as written (before the rebuild)',
          value: round(prices.written.total / prices.rows, 1),
          unit: 'B',
        },
        { name: 'price heap per row', value: round(prices.compacted.heap / prices.rows, 1), unit: 'B' },
        {
          name: 'price key index per row, as written',
          value: round(prices.written.indexes / prices.rows, 1),
          unit: 'B',
        },
        {
          name: 'price key index per row, rebuilt',
          value: round(prices.compacted.indexes / prices.rows, 1),
          unit: 'B',
        },
        { name: 'price rows measured', value: prices.rows, unit: '' },
      );
      const describeBytes = (table: string) => {
        const grew = (part: keyof TableBytes) => round(perAddressDay(full[table]![part] - baseline[table]![part]), 1);
        return `${table} ${grew('total')} (heap ${grew('heap')}, toast ${grew('toast')}, indexes ${grew('indexes')})`;
      };
      const describeRows = (rows: Record<string, number>) =>
        COUNTED.map((table) => `${table} ${round(rows[table]! / addressDays, 1)}`).join(', ');
      return {
        scenario: 'storage',
        figures,
        notes: [
          `${ADDRESSES} addresses x ${DAYS} days, ${jobs} jobs through commitJob with the simulated upstream's answers (world epoch one day: positions live 2 to 8 days; values follow the prices of the minute), schedules */15 and hourly`,
          'bytes: main forks (heap, TOAST, indexes) of every partition, grown since the empty schema; "on disk after the maintenance job": thinned (downsampleSnapshots), the month\'s partitions rewritten (compactThinnedPartitions), and the refresh records (not partitioned: new rows reuse their space) counted at their live size (VACUUM FULL); "before the partition rewrite": after a plain VACUUM (the files keep their size)',
          `rows per address per day, full resolution: ${describeRows(fullRows)}`,
          `KB per address per day, full resolution: ${TABLES.map(describeBytes).join(', ')}`,
          ...downsampled.map((tier) => `rows per address per day, ${tier.tier}: ${describeRows(tier.rows)}`),
          `prices: ${PRICE_TOKENS} tokens x ${PRICE_MINUTES} minutes written as live ticks (${WRITERS} writers, one transaction per 50-token job), after VACUUM; then compactPriceIndexes (what the maintenance job runs daily)`,
        ],
      };
    } finally {
      await database.drop();
    }
  },
};
