import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Figure } from '../support/report.ts';
import { round, type Scenario } from '../support/scenario.ts';
import { createBenchDatabase } from '../support/services.ts';

const CLI = fileURLToPath(new URL('../../bin/chaintap.mjs', import.meta.url));
/** Starts measured per command, after WARM_UP starts that fill Node's compile cache. */
const RUNS = 15;
const WARM_UP = 2;
/** The target for `chaintap --help` and `chaintap tokens list` (Node itself: about 0.1 s). */
const TARGET_MS = 300;

/** CPU time (user + system) of this process's waited-for children, in ms (Linux: /proc/self/stat). */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // cutime and cstime: fields 16 and 17 of stat(5), in clock ticks (100 a second).
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

interface Starts {
  medianMs: number;
  minMs: number;
  cpuMs: number;
}

/** Runs `node <args>` RUNS times (after WARM_UP), each to its end; fails on a non-zero exit. */
function measure(args: string[], env: Record<string, string>): Starts {
  const run = () => {
    const result = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  };
  for (let i = 0; i < WARM_UP; i++) run();
  const times: number[] = [];
  const cpuBefore = childrenCpuMs();
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(RUNS / 2)]!, minMs: times[0]!, cpuMs: (childrenCpuMs() - cpuBefore) / RUNS };
}

/** How long a command takes from `node` to its exit: `--help` and `tokens list` against Node itself. */
export const cliStartupScenario: Scenario = {
  name: 'cli-startup',
  description: `start-up of chaintap --help, --version and tokens list against node -e 1 (median of ${RUNS})`,
  async run({ services, log }) {
    const database = await createBenchDatabase(services, 'cli_startup', 1);
    try {
      await database.sql`insert into watched_tokens (coin_type) values ('0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI')`;
      const env = { DATABASE_URL: database.url };
      const cases: [string, string[], boolean][] = [
        ['node -e 1', ['-e', '1'], false],
        ['chaintap --help', [CLI, '--help'], true],
        ['chaintap --version', [CLI, '--version'], false],
        ['chaintap tokens list', [CLI, 'tokens', 'list'], true],
      ];
      const figures: Figure[] = [];
      for (const [name, args, targeted] of cases) {
        log(`cli-startup: ${name}`);
        const starts = measure(args, env);
        figures.push(
          {
            name: `${name}: median start to exit`,
            value: round(starts.medianMs, 0),
            unit: 'ms',
            ...(targeted ? { target: { op: '<=' as const, value: TARGET_MS } } : {}),
          },
          { name: `${name}: fastest`, value: round(starts.minMs, 0), unit: 'ms' },
          { name: `${name}: CPU (user + system) per start`, value: round(starts.cpuMs, 0), unit: 'ms' },
        );
      }
      return {
        scenario: 'cli-startup',
        figures,
        notes: [
          `${RUNS} starts per command after ${WARM_UP} that fill Node's compile cache (bin/chaintap.mjs enables it)`,
          'tokens list reads a local database of one watched token; wall times follow the machine load, CPU times less so',
        ],
      };
    } finally {
      await database.drop();
    }
  },
};
