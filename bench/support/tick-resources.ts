import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { findPostmaster, postgresCpuSampler, type PostgresCpu } from './postgres-cpu.ts';
import { cpuSeconds, machineBusySeconds } from './process-cpu.ts';
import { prefixMemory, redisServerPid, usedMemory, type PrefixMemory } from './redis-memory.ts';
import type { BenchDatabase } from './services.ts';
import { tablesBytes } from './storage-size.ts';

/** How often Redis memory and the Postgres processes are read during the tick. */
const SAMPLE_MS = 250;

/** The tables a positions or NFT job writes, grouped as docs/scaling.md counts them. */
export const TABLE_GROUPS = {
  history: ['position_snapshot_points', 'nft_holding_snapshots', 'position_refreshes', 'nft_refreshes'],
  state: ['positions', 'position_tokens', 'protocols', 'nft_tokens', 'nft_collections'],
  runs: ['ingestion_runs', 'dataset_watermarks'],
  raw: ['raw_responses', 'raw_body_dictionaries'],
} as const;

type TableGroup = keyof typeof TABLE_GROUPS;

/** What the machine's processes, Redis and Postgres spent on one tick, for docs/scaling.md's model. */
export interface TickResources {
  seconds: number;
  /** 1, 5 and 15-minute load averages at the tick's start and end (other work shows there). */
  loadAverage: { before: number[]; after: number[] };
  /** CPU seconds over the tick; null where the process cannot be seen from here. */
  cpu: {
    workers: number;
    postgres: PostgresCpu | null;
    /** The redis-server process: every client of that Redis, not only this run. */
    redis: number | null;
    simulator: number;
    /** This process: the producer, the wait for the tick and the sampling. */
    bench: number;
    /** Every process on the machine, other work included. */
    machine: number;
  };
  redis: {
    /** INFO used_memory, every user's: before the tick, the highest sample, after it. */
    usedBefore: number;
    usedPeak: number;
    usedAfter: number;
    samples: number;
    /** The run's own keys before and after the tick. */
    prefixBefore: PrefixMemory;
    prefixAfter: PrefixMemory;
  };
  postgres: {
    /** pg_database_size of the run's database. */
    databaseBefore: number;
    databaseAfter: number;
    /** Bytes grown per group of tables (heap, TOAST and indexes). */
    tablesGrown: Record<TableGroup, number>;
    /** WAL written meanwhile: the whole server's, other databases' writes included. */
    walBytes: number;
  };
}

export interface TickResourcesSampler {
  /** Ends the sampling and measures what the tick left. */
  stop(): Promise<TickResources>;
  /** Ends the sampling without measuring (on error); safe after stop(). */
  close(): void;
}

interface Settings {
  redisUrl: string;
  prefix: string;
  database: BenchDatabase;
  workerPids: number[];
  simulatorPid: number;
}

async function groupBytes(database: BenchDatabase): Promise<Record<TableGroup, number>> {
  const bytes = await tablesBytes(database.sql, Object.values(TABLE_GROUPS).flat());
  const sum = (tables: readonly string[]) => tables.reduce((total, table) => total + bytes[table]!.total, 0);
  return {
    history: sum(TABLE_GROUPS.history),
    state: sum(TABLE_GROUPS.state),
    runs: sum(TABLE_GROUPS.runs),
    raw: sum(TABLE_GROUPS.raw),
  };
}

async function databaseSize(database: BenchDatabase): Promise<number> {
  const [row] = await database.sql<{ bytes: string }[]>`select pg_database_size(current_database())::text as bytes`;
  return Number(row!.bytes);
}

async function walPosition(database: BenchDatabase): Promise<string> {
  const [row] = await database.sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
  return row!.lsn;
}

/**
 * Measures what the run's Redis keys and database hold, then samples Redis' used_memory and the
 * Postgres processes every 250 ms until stop(). Call it right before the tick starts: the slow
 * reads (every key's MEMORY USAGE, the tables' sizes) come before the CPU baselines, and after the
 * CPU is read at the end.
 */
export async function startTickResources(settings: Settings): Promise<TickResourcesSampler> {
  const { database, prefix } = settings;
  const redis = new Redis(settings.redisUrl, { maxRetriesPerRequest: 1 });
  const prefixBefore = await prefixMemory(redis, prefix);
  const databaseBefore = await databaseSize(database);
  const groupsBefore = await groupBytes(database);
  const walBefore = await walPosition(database);
  const redisPid = await redisServerPid(redis);
  const postmaster = await findPostmaster(database.sql, database.name);
  const postgres = postmaster === null ? null : postgresCpuSampler(postmaster, database.name);

  const usedBefore = await usedMemory(redis);
  let usedPeak = usedBefore;
  let samples = 1;
  let failure: unknown;
  let sampling: Promise<void> | null = null;
  const sample = async () => {
    try {
      postgres?.sample();
      usedPeak = Math.max(usedPeak, await usedMemory(redis));
      samples += 1;
    } catch (error) {
      failure ??= error;
    }
  };
  const processCpu = () => ({
    workers: cpuSeconds(settings.workerPids),
    redis: redisPid === null ? null : cpuSeconds([redisPid]),
    simulator: cpuSeconds([settings.simulatorPid]),
    machine: machineBusySeconds(),
  });
  const loadBefore = loadavg();
  const started = performance.now();
  const benchBefore = process.cpuUsage();
  const cpuBefore = processCpu();
  postgres?.sample();
  const timer = setInterval(() => {
    // A sample still waiting for Redis is not doubled.
    sampling ??= sample().finally(() => (sampling = null));
  }, SAMPLE_MS);
  timer.unref();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    redis.disconnect();
  };

  return {
    close,
    async stop() {
      clearInterval(timer);
      await sampling;
      const cpuAfter = processCpu();
      postgres?.sample();
      const bench = process.cpuUsage(benchBefore);
      const seconds = (performance.now() - started) / 1000;
      const loadAfter = loadavg();
      try {
        if (failure) throw failure;
        const usedAfter = await usedMemory(redis);
        const walAfter = await walPosition(database);
        const [wal] = await database.sql<
          { bytes: string }[]
        >`select pg_wal_lsn_diff(${walAfter}, ${walBefore})::text as bytes`;
        const groupsAfter = await groupBytes(database);
        return {
          seconds,
          loadAverage: { before: loadBefore, after: loadAfter },
          cpu: {
            workers: cpuAfter.workers - cpuBefore.workers,
            postgres: postgres?.used() ?? null,
            redis: cpuAfter.redis === null || cpuBefore.redis === null ? null : cpuAfter.redis - cpuBefore.redis,
            simulator: cpuAfter.simulator - cpuBefore.simulator,
            bench: (bench.user + bench.system) / 1e6,
            machine: cpuAfter.machine - cpuBefore.machine,
          },
          redis: {
            usedBefore,
            usedPeak: Math.max(usedPeak, usedAfter),
            usedAfter,
            samples: samples + 1,
            prefixBefore,
            prefixAfter: await prefixMemory(redis, prefix),
          },
          postgres: {
            databaseBefore,
            databaseAfter: await databaseSize(database),
            tablesGrown: {
              history: groupsAfter.history - groupsBefore.history,
              state: groupsAfter.state - groupsBefore.state,
              runs: groupsAfter.runs - groupsBefore.runs,
              raw: groupsAfter.raw - groupsBefore.raw,
            },
            walBytes: Number(wal!.bytes),
          },
        };
      } finally {
        close();
      }
    },
  };
}
