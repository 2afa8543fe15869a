import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { runCycle } from '../../src/cli/run-cycle.ts';
import { compareData, readData, rowCounts, type DataComparison, type DataSnapshot } from './fault-digest.ts';
import { priceBatchesOf, readTick, type PriceBatch, type TickView } from './fault-atomicity.ts';
import type { ChaintapProcess } from './fault-processes.ts';
import { createPipelineHarness, type PipelineHarness, cycleDeps } from './pipeline.ts';
import type { Dataset } from '../../src/datasets.ts';
import { coin } from './coins.ts';

/** The tick every fault scenario runs (the simulator's world time is frozen at it). */
export const FAULT_TICK = new Date('2026-11-21T12:00:00Z');
export const ALL_DATASETS: readonly Dataset[] = ['prices', 'positions', 'nfts'];

export interface Watchlist {
  tokens: string[];
  /** Addresses refreshed with NFT profit and loss. */
  pnlAddresses: string[];
  plainAddresses: string[];
}

/** A deterministic watchlist: `tokens` coin types (SUI first) and `addresses` addresses, half with PnL. */
export function faultWatchlist(settings: { tokens: number; addresses: number }): Watchlist {
  const hex = (label: string) => createHash('sha256').update(label).digest('hex');
  const tokens = ['0x2::sui::SUI', ...Array.from({ length: settings.tokens - 1 }, (_, i) => coin(i))];
  const addresses = Array.from({ length: settings.addresses }, (_, i) => `0x${hex(`address-${i}`)}`);
  const half = Math.ceil(addresses.length / 2);
  return { tokens, pnlAddresses: addresses.slice(0, half), plainAddresses: addresses.slice(half) };
}

export async function seedWatchlist(database: Database, watchlist: Watchlist): Promise<void> {
  await addWatchedTokens(database, watchlist.tokens);
  await addWatchedAddresses(database, watchlist.pnlAddresses, { includePnl: true });
  await addWatchedAddresses(database, watchlist.plainAddresses, {});
}

/** Jobs a tick of the watchlist makes over the datasets. */
export function jobCount(watchlist: Watchlist, datasets: readonly Dataset[] = ALL_DATASETS): number {
  const addresses = watchlist.pnlAddresses.length + watchlist.plainAddresses.length;
  const perDataset: Record<Dataset, number> = {
    prices: Math.ceil(watchlist.tokens.length / 50),
    positions: addresses,
    nfts: addresses,
  };
  return datasets.reduce((sum, dataset) => sum + perDataset[dataset], 0);
}

export interface Reference {
  data: DataSnapshot;
  /** Every job of the tick, as the atomicity watcher sees it. */
  view: TickView;
  batches: PriceBatch[];
}

/**
 * The fault-free run of the same tick: the same watchlist on a clean database of its own, against
 * a simulator with the same frozen world time and no faults, processed in-process. It is the same
 * in every file of a run (deterministic world, fixed tick), so the first file to finish one keeps it
 * in the run's folder and the others read it there instead of running it again.
 */
export async function referenceRun(
  watchlist: Watchlist,
  tick = FAULT_TICK,
  datasets: readonly Dataset[] = ALL_DATASETS,
): Promise<Reference> {
  const key = createHash('sha256').update(JSON.stringify({ watchlist, tick, datasets })).digest('hex').slice(0, 16);
  const file = join(inject('runFolder'), `fault-reference-${key}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'), withMaps) as Reference;
  const reference = await runReference(watchlist, tick, datasets);
  // Written whole, then renamed: another file never reads half of it.
  writeFileSync(`${file}.${process.pid}`, JSON.stringify(reference, withMaps));
  renameSync(`${file}.${process.pid}`, file);
  return reference;
}

/** JSON's replacer and reviver for the Maps a Reference holds. */
function withMaps(_key: string, value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value] };
  if (value && typeof value === 'object' && '$map' in value)
    return new Map((value as { $map: [unknown, unknown][] }).$map);
  return value;
}

async function runReference(
  watchlist: Watchlist,
  tick = FAULT_TICK,
  datasets: readonly Dataset[] = ALL_DATASETS,
): Promise<Reference> {
  const harness = await createPipelineHarness({ options: { UPSTREAM_CONCURRENCY: '16' } });
  try {
    await seedWatchlist(harness.database, watchlist);
    const outcome = await runCycle(cycleDeps(harness), { tick, datasets });
    if (!outcome.complete) throw new Error('the fault-free reference cycle did not complete');
    const [failed] = await harness.database.sql<
      { n: number }[]
    >`select count(*)::int as n from ingestion_runs where status <> 'succeeded'`;
    if (failed!.n > 0) throw new Error(`the fault-free reference cycle has ${failed!.n} unsuccessful jobs`);
    const batches = await priceBatchesOf(harness.database, tick);
    return {
      data: await readData(harness.database),
      view: await readTick(harness.database.sql, tick, batches),
      batches,
    };
  } finally {
    await harness.close();
  }
}

/** Jobs of the tick finished so far (succeeded, failed for good or superseded), over the datasets. */
export async function finishedJobs(harness: PipelineHarness, tick = FAULT_TICK): Promise<number> {
  const progress = await Promise.all(ALL_DATASETS.map((dataset) => harness.tracker.progress(dataset, tick)));
  return progress.reduce((sum, p) => sum + p.finished, 0);
}

/**
 * Polls the tick tracker until every dataset's tick is complete. With `workers`, fails at once
 * when every one of them has exited (nothing would finish the tick), showing their last lines.
 */
export async function waitForTickComplete(
  harness: PipelineHarness,
  timeoutMs: number,
  workers: ChaintapProcess[] = [],
  tick = FAULT_TICK,
  datasets: readonly Dataset[] = ALL_DATASETS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const progress = await Promise.all(datasets.map((dataset) => harness.tracker.progress(dataset, tick)));
    if (progress.every((p) => p.complete)) return;
    if (
      workers.length > 0 &&
      workers.every((worker) => worker.child.exitCode !== null || worker.child.signalCode !== null)
    ) {
      const last = workers.map(
        (worker) =>
          `${worker.name} (exit ${worker.child.exitCode ?? worker.child.signalCode}):\n${worker.lines.slice(-15).join('\n')}`,
      );
      throw new Error(`every worker exited before the tick completed\n${last.join('\n')}`);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `tick not complete after ${timeoutMs} ms: ${datasets.map((d, i) => `${d} ${progress[i]!.finished}/${progress[i]!.expected}`).join(', ')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Counts of the tick's jobs by outcome, from ingestion_runs. */
export async function runOutcomes(database: Database, tick = FAULT_TICK): Promise<Record<string, number>> {
  const rows = await database.sql<{ status: string; n: number }[]>`
    select status, count(*)::int as n from ingestion_runs where tick = ${tick} group by 1 order by 1`;
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

export interface ScenarioRecord {
  scenario: string;
  rowsExpected: number;
  rowsFound: number;
  duplicates: number;
  lost: number;
  changed: number;
  extra: number;
  notes?: Record<string, unknown>;
}

/**
 * Prints one line per scenario run and, when FAULTS_REPORT names a file, appends it there as JSON
 * (docs/reliability.md is made from those lines).
 */
export function recordScenario(
  scenario: string,
  comparison: DataComparison,
  notes: Record<string, unknown> = {},
): ScenarioRecord {
  const record: ScenarioRecord = {
    scenario,
    rowsExpected: comparison.rowsExpected,
    rowsFound: comparison.rowsFound,
    duplicates: comparison.duplicates,
    lost: comparison.lost,
    changed: comparison.changed,
    extra: comparison.extra,
    notes,
  };
  console.log(`[faults] ${JSON.stringify(record)}`);
  if (process.env.FAULTS_REPORT) appendFileSync(process.env.FAULTS_REPORT, `${JSON.stringify(record)}\n`);
  return record;
}

/**
 * Records the scenario, then fails unless the run's data equal the fault-free run's: no difference,
 * no duplicate, lost, changed or extra row, and (unless `checksums` is false, for a comparison
 * scoped to some targets) every table's checksum the same.
 */
export function expectDataOfReference(
  scenario: string,
  comparison: DataComparison,
  notes: Record<string, unknown> = {},
  { checksums = true }: { checksums?: boolean } = {},
): void {
  recordScenario(scenario, comparison, notes);
  expect(comparison.differences).toEqual({});
  if (checksums) expect(comparison.tablesDiffering).toEqual([]);
  const { duplicates, lost, changed, extra } = comparison;
  expect({ duplicates, lost, changed, extra }).toEqual({ duplicates: 0, lost: 0, changed: 0, extra: 0 });
}

/** Reads the run's data and compares it with the reference. */
export async function compareWithReference(
  database: Database,
  reference: Reference,
  scope?: (table: string, key: string) => boolean,
) {
  const data = await readData(database);
  return { data, comparison: compareData(data, reference.data, scope), counts: rowCounts(data) };
}
