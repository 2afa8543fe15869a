import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time of processes and of the machine, read from Linux's /proc (the benchmark's machine). The
 * reads are synchronous: a few small files, a few microseconds each, every 250 ms.
 */

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every common Linux). */
const CLOCK_TICKS = clockTicks();

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

export interface ProcessCpu {
  pid: number;
  /** The executable's name (`comm`, at most 15 characters). */
  name: string;
  parentPid: number;
  /** User + system time of every thread of the process, in seconds. */
  seconds: number;
  /** User + system time of its children that exited and were waited for, in seconds. */
  exitedChildrenSeconds: number;
}

/** /proc/<pid>/stat, or null when the process is gone (or not visible from here). */
export function processCpu(pid: number): ProcessCpu | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The name is in parentheses and may hold spaces and parentheses: the fields follow the last ')'.
  const close = stat.lastIndexOf(')');
  const name = stat.slice(stat.indexOf('(') + 1, close);
  // From field 3 (state): ppid is field 4, utime 14, stime 15, cutime 16, cstime 17 (proc(5)).
  const fields = stat
    .slice(close + 2)
    .split(' ')
    .map((field) => Number(field));
  const ticks = (field: number) => fields[field - 3]!;
  return {
    pid,
    name,
    parentPid: ticks(4),
    seconds: (ticks(14) + ticks(15)) / CLOCK_TICKS,
    exitedChildrenSeconds: (ticks(16) + ticks(17)) / CLOCK_TICKS,
  };
}

/** CPU seconds of each process (0 for one that is gone). */
export function cpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + (processCpu(pid)?.seconds ?? 0), 0);
}

/** The living children of a single-threaded process (a Postgres postmaster). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The command line, as the process shows it (Postgres backends name their database there). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/**
 * The CPU time every process on the machine used (user, nice, system, irq, softirq: not idle,
 * iowait or steal), summed over the CPUs, in seconds.
 */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [user, nice, system, , , irq, softirq] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq!) / CLOCK_TICKS;
}
