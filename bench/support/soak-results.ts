import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DayReconciliation } from './soak-reconcile.ts';
import type { ProcessMemory } from './soak-processes.ts';
import type { Figure } from './report.ts';
import { lineChartSvg, type ChartSeries } from './svg-chart.ts';

const MB = 1024 * 1024;

/** What the soak records at the end of each simulated day. */
export interface SoakDay {
  day: number;
  logicalDate: string;
  /** Real seconds since the soak started. */
  realSeconds: number;
  /** Jobs of the day's ticks (ingestion runs). */
  jobs: number;
  /** Bytes per table (pg_total_relation_size, partitions in their parent). */
  tables: Record<string, number>;
  /** Of those, the bytes of the table's indexes (pg_indexes_size). */
  indexes: Record<string, number>;
  /** Of those, the free space Postgres reuses for new rows (pg_freespacemap: heap, TOAST, indexes). */
  free: Record<string, number>;
  /** Rows of the tables that grow with time (soak-samples.ts COUNTED_TABLES); absent in runs before 2026-11-30. */
  rows?: Record<string, number>;
  /** Real milliseconds the housekeeping minute waited for the previous day's reconciliation. */
  reconciliationWaitMs: number;
  redis: { usedMemory: number; keys: number };
  trackerKeysExpired: number;
  processes: ({ name: string } & ProcessMemory)[];
  /** The most jobs waiting or running per queue, sampled while each minute's jobs ran. */
  maxQueueDepth: Record<string, number>;
  /** Real milliseconds from a minute's slots firing until its jobs were all done, by kind of minute. */
  stepMs: Record<'prices' | 'positions' | 'nfts' | 'maintenance', { count: number; mean: number; max: number }>;
  reconciliation: DayReconciliation;
}

export interface SoakRecord {
  settings: object;
  start: number;
  days: SoakDay[];
  faults: string[];
  alerts: object | null;
  figures: Figure[];
}

/** Writes soak-days.json and one SVG chart per figure into `dir` (overwritten each simulated day). */
export function writeSoakResults(dir: string, record: SoakRecord): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'soak-days.json'),
    `${JSON.stringify({ ...record, start: new Date(record.start).toISOString() }, null, 2)}\n`,
  );
  const { days } = record;
  const mb = (bytes: number | undefined) => (bytes === undefined ? null : Math.round((bytes / MB) * 100) / 100);
  const tables = [...new Set(days.flatMap((d) => Object.keys(d.tables)))];
  const largest = tables
    .map((table) => ({ table, bytes: days.at(-1)?.tables[table] ?? 0 }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 8)
    .map(({ table }) => table);
  const total: ChartSeries = {
    name: 'all tables',
    values: days.map((d) => mb(totalBytes(d.tables))),
  };
  const inUse: ChartSeries = {
    name: 'all tables, in use (less reusable free space)',
    values: days.map((d) => mb(bytesInUse(d))),
  };
  const charts: Record<string, string> = {
    'soak-postgres.svg': lineChartSvg('Postgres size by table, end of each day', 'MB', [
      total,
      inUse,
      ...largest.map((table) => ({ name: table, values: days.map((d) => mb(d.tables[table])) })),
    ]),
    'soak-redis-memory.svg': lineChartSvg('Redis used_memory, end of each day', 'MB', [
      { name: 'used_memory', values: days.map((d) => mb(d.redis.usedMemory)) },
    ]),
    'soak-redis-keys.svg': lineChartSvg('Redis keys, end of each day', 'keys', [
      { name: 'keys', values: days.map((d) => d.redis.keys) },
    ]),
    'soak-rss.svg': lineChartSvg(
      'RSS per process, end of each day',
      'MB',
      processSeries(days, (p) => mb(p.rss)),
    ),
    'soak-heap.svg': lineChartSvg(
      'V8 heap used per process, end of each day',
      'MB',
      processSeries(days, (p) => mb(p.heapUsed)),
    ),
    'soak-queue-depth.svg': lineChartSvg('Most jobs waiting or running per queue, each day', 'jobs', queueSeries(days)),
    'soak-slot-time.svg': lineChartSvg('Real time from a minute firing to its jobs done (mean per day)', 'ms', [
      ...(['prices', 'positions', 'nfts', 'maintenance'] as const).map((kind) => ({
        name: `${kind} minute`,
        values: days.map((d) => (d.stepMs[kind].count ? d.stepMs[kind].mean : null)),
      })),
    ]),
  };
  for (const [file, svg] of Object.entries(charts)) writeFileSync(join(dir, file), svg);
}

/** The bytes of all tables together. */
export function totalBytes(byTable: Record<string, number>): number {
  return Object.values(byTable).reduce((sum, n) => sum + n, 0);
}

/** The database's bytes on disk less the free space it reuses for new rows. */
export function bytesInUse(day: SoakDay): number {
  return totalBytes(day.tables) - totalBytes(day.free);
}

function processSeries(days: SoakDay[], value: (p: SoakDay['processes'][number]) => number | null): ChartSeries[] {
  const names = [...new Set(days.flatMap((d) => d.processes.map((p) => p.name)))];
  return names.map((name) => ({
    name,
    values: days.map((d) => {
      const found = d.processes.find((p) => p.name === name);
      return found ? value(found) : null;
    }),
  }));
}

function queueSeries(days: SoakDay[]): ChartSeries[] {
  const names = [...new Set(days.flatMap((d) => Object.keys(d.maxQueueDepth)))];
  return names.map((name) => ({ name, values: days.map((d) => d.maxQueueDepth[name] ?? 0) }));
}
