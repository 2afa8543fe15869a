import type { Sql } from '../../src/db/client.ts';
import { childPids, commandLine, processCpu } from './process-cpu.ts';

/** CPU seconds the Postgres server's processes used over a span, by whom they worked for. */
export interface PostgresCpu {
  /** The backends connected to the run's database (the workers', the producer's). */
  database: number;
  /**
   * The server's own processes: the postmaster, checkpointer, background writer, WAL writer and
   * launchers. They flush and checkpoint every database's writes, other work's on the machine too.
   */
  server: number;
  /** Backends of other databases (other work on the machine), and any time no sample saw. */
  other: number;
}

type Kind = keyof PostgresCpu;

export interface PostgresCpuSampler {
  /**
   * Reads every process of the server. Call it often (every 250 ms): a backend that exits between
   * two samples leaves its last moments to `other`.
   */
  sample(): void;
  /** From the first sample to the last. */
  used(): PostgresCpu;
}

/**
 * The postmaster's pid, found through a backend of `sql`'s connection pool; null when Postgres runs
 * where this process cannot see its processes (another machine, another pid namespace).
 */
export async function findPostmaster(sql: Sql, databaseName: string): Promise<number | null> {
  const [row] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
  const backend = processCpu(row!.pid);
  // A pid of another namespace may name some other process here: the backend shows its database.
  if (!backend || !commandLine(backend.pid).includes(` ${databaseName} `)) return null;
  return processCpu(backend.parentPid)?.name === 'postgres' ? backend.parentPid : null;
}

/**
 * The server's CPU split by process: its total is exact (the postmaster's own time, its exited
 * children's and its living children's), the split is by each process's command line.
 */
export function postgresCpuSampler(postmasterPid: number, databaseName: string): PostgresCpuSampler {
  const processes = new Map<number, { kind: Kind; first: number; last: number }>();
  let samples = 0;
  let firstTotal = 0;
  let lastTotal = 0;
  const kindOf = (pid: number): Kind => {
    const line = commandLine(pid);
    if (line.includes(` ${databaseName} `)) return 'database';
    // A client backend shows its client: `127.0.0.1(5432)` or `[local]`.
    return /\(\d+\)|\[local\]/.test(line) ? 'other' : 'server';
  };
  const record = (pid: number, kind: Kind, seconds: number) => {
    const known = processes.get(pid);
    // A process first seen after the first sample started since: all its time is in the span.
    if (!known) processes.set(pid, { kind, first: samples === 0 ? seconds : 0, last: seconds });
    else Object.assign(known, { kind, last: seconds });
  };
  return {
    sample() {
      const postmaster = processCpu(postmasterPid);
      if (!postmaster) throw new Error(`the Postgres postmaster (pid ${postmasterPid}) is gone`);
      let total = postmaster.seconds + postmaster.exitedChildrenSeconds;
      record(postmasterPid, 'server', postmaster.seconds);
      for (const pid of childPids(postmasterPid)) {
        const cpu = processCpu(pid);
        if (!cpu) continue;
        total += cpu.seconds;
        // The title names the database once the backend has started (not in its first moments).
        record(pid, kindOf(pid), cpu.seconds);
      }
      if (samples === 0) firstTotal = total;
      lastTotal = total;
      samples += 1;
    },
    used() {
      const used: PostgresCpu = { database: 0, server: 0, other: 0 };
      for (const { kind, first, last } of processes.values()) used[kind] += last - first;
      used.other = Math.max(0, lastTotal - firstTotal - used.database - used.server);
      return used;
    },
  };
}
