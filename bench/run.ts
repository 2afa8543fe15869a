/**
 * `npm run bench [-- scenario...]`: the benchmarks of docs/benchmarks.md against the simulated
 * upstream and the local Postgres and Redis (own databases, own Redis prefix). Prints a table and
 * appends one JSON object per scenario to bench/results/results.jsonl.
 */
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { addressesScenario } from './scenarios/addresses.ts';
import { backfillScenario } from './scenarios/backfill.ts';
import {
  pacing100Scenario,
  pacing2Scenario,
  pacing40MinFixedScenario,
  pacing40MinScenario,
} from './scenarios/pacing.ts';
import { cadenceScenario } from './scenarios/cadence.ts';
import { cliStartupScenario } from './scenarios/cli-startup.ts';
import { pricesScenario } from './scenarios/prices.ts';
import { quotaScenario } from './scenarios/quota.ts';
import { soakScenario } from './scenarios/soak.ts';
import { storageScenario } from './scenarios/storage.ts';
import { writePathScenario } from './scenarios/write-path.ts';
import { appendResult, commitOf, formatTable, machineOf, type ScenarioResult } from './support/report.ts';
import type { Scenario } from './support/scenario.ts';
import { benchServices } from './support/services.ts';

const SCENARIOS: Scenario[] = [
  pricesScenario,
  addressesScenario,
  writePathScenario,
  backfillScenario,
  storageScenario,
  quotaScenario,
  pacing100Scenario,
  pacing2Scenario,
  pacing40MinScenario,
  pacing40MinFixedScenario,
  cliStartupScenario,
  cadenceScenario,
  soakScenario,
];

async function versions(adminUrl: string, redisUrl: string): Promise<{ postgres: string; redis: string }> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const [row] = await sql<{ version: string }[]>`select current_setting('server_version') as version`;
    const info = await redis.info('server');
    return { postgres: row!.version, redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown' };
  } finally {
    await sql.end();
    redis.disconnect();
  }
}

const loadAverage = () => loadavg().map((load) => Math.round(load * 100) / 100);

/** Scenario names, and `--name value` settings for the scenarios that take some (soak: --days, --wallets, --tokens). */
function parseArguments(args: string[]): { names: string[]; settings: Record<string, string> } {
  const names: string[] = [];
  const settings: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--help' || arg === '-h' || !arg.startsWith('--')) {
      names.push(arg);
      continue;
    }
    const value = args[i + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${arg}: expected a value`);
    settings[arg.slice(2)] = value;
    i += 1;
  }
  return { names, settings };
}

async function main(): Promise<void> {
  const { names, settings } = parseArguments(process.argv.slice(2).filter((arg) => arg !== '--'));
  if (names.includes('--help') || names.includes('-h')) {
    console.log(
      `usage: npm run bench [-- <scenario>... [--setting value]...]\n\n${SCENARIOS.map((s) => `  ${s.name.padEnd(12)} ${s.description}`).join('\n')}`,
    );
    return;
  }
  const unknown = names.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0)
    throw new Error(`unknown scenario ${unknown.join(', ')}: choose from ${SCENARIOS.map((s) => s.name).join(', ')}`);
  const selected =
    names.length === 0 ? SCENARIOS.filter((s) => !s.onlyByName) : SCENARIOS.filter((s) => names.includes(s.name));
  const services = benchServices();
  const machine = machineOf(
    ...(Object.values(await versions(services.adminUrl, services.redisUrl)) as [string, string]),
  );
  const commit = commitOf();
  const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
  log(
    `commit ${commit}, ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, PostgreSQL ${machine.postgres}, Redis ${machine.redis}`,
  );
  const results: ScenarioResult[] = [];
  for (const scenario of selected) {
    log(`${scenario.name}: ${scenario.description}`);
    const started = performance.now();
    const before = loadAverage();
    const result = await scenario.run({ services, log, settings });
    const seconds = (performance.now() - started) / 1000;
    const after = loadAverage();
    log(
      `${scenario.name}: done in ${seconds.toFixed(1)} s (load average ${before.join(' ')} before, ${after.join(' ')} after)`,
    );
    results.push(result);
    await appendResult(result, {
      machine,
      commit,
      date: new Date().toISOString(),
      seconds,
      loadAverage: { before, after },
    });
  }
  console.log(formatTable(results));
  for (const result of results) for (const note of result.notes) console.log(`  ${result.scenario}: ${note}`);
}

await main();
