import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.ts';
import { freePort } from '../support/fault-redis-server.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';

// Every command, run as a user runs it with one setting missing or wrong, ends by itself within a
// few seconds: a non-zero exit and one screen that names the setting, no stack trace, and nothing
// left holding the process open (src/cli/main.ts would say so before ending it).
const EXIT_WITHIN_MS = 10_000;
const SCREEN_LINES = 24;
const SUI_ADDRESS = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const SUI = '0x2::sui::SUI';

type Fault = 'key' | 'url' | 'postgres' | 'redis' | 'setting';

/** Each command, and the faults it must stop on (those it needs: `plan` needs no Redis, `simulate` only its key). */
const COMMANDS: [string[], Fault[]][] = [
  [['migrate'], ['postgres', 'setting']],
  [
    ['tokens', 'add', SUI],
    ['postgres', 'setting'],
  ],
  [
    ['tokens', 'remove', SUI],
    ['postgres', 'setting'],
  ],
  [
    ['tokens', 'list'],
    ['postgres', 'setting'],
  ],
  [
    ['addresses', 'add', SUI_ADDRESS],
    ['postgres', 'setting'],
  ],
  [
    ['addresses', 'remove', SUI_ADDRESS],
    ['postgres', 'setting'],
  ],
  [
    ['addresses', 'list'],
    ['postgres', 'setting'],
  ],
  [['run-once'], ['key', 'url', 'postgres', 'redis', 'setting']],
  [
    ['backfill', 'prices', '--from', '2026-11-20T00:00:00Z', '--to', '2026-11-20T03:00:00Z', '--tokens', SUI],
    ['key', 'url', 'postgres', 'redis', 'setting'],
  ],
  [['start'], ['key', 'url', 'postgres', 'redis', 'setting']],
  [['worker'], ['key', 'url', 'postgres', 'redis', 'setting']],
  [['scheduler'], ['postgres', 'redis', 'setting']],
  // Without PostgreSQL or Redis the demo starts its own (src/cli/local-services.ts): not an error.
  [['demo'], ['setting']],
  [['status'], ['postgres', 'redis', 'setting']],
  [['plan'], ['postgres', 'setting']],
  [
    ['raw', 'list'],
    ['postgres', 'setting'],
  ],
  [
    ['raw', 'show', '1'],
    ['postgres', 'setting'],
  ],
  [['probe'], ['key', 'url', 'postgres', 'setting']],
  [
    ['probe', '--address', SUI_ADDRESS, '--tokens', SUI],
    ['key', 'url', 'redis', 'setting'],
  ],
  [['simulate', '--port', '0'], ['key']],
];

let harness: PipelineHarness;
let faults: Record<Fault, { env: Record<string, string>; names: RegExp }>;
/** The commands `chaintap --help` lists. */
let listed: string[];

beforeAll(async () => {
  harness = await createPipelineHarness();
  const help = await runCli(['--help'], harness.env);
  const section = help.stdout.slice(help.stdout.indexOf('Commands:'));
  listed = [...section.matchAll(/^ {2}([a-z-]+)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
  // Nothing listens there: connections are refused at once.
  const closed = await freePort();
  faults = {
    key: { env: { UPSTREAM_API_KEY: '' }, names: /UPSTREAM_API_KEY/ },
    // No default: nothing runs against the simulator unless asked.
    url: {
      env: { UPSTREAM_BASE_URL: '' },
      names: /^error: UPSTREAM_BASE_URL is not set: the URL of the blockchain data service/m,
    },
    postgres: {
      env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/chaintap` },
      names: new RegExp(`cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${closed} \\(DATABASE_URL\\): ECONNREFUSED`),
    },
    redis: {
      env: { REDIS_URL: `redis://127.0.0.1:${closed}` },
      names: new RegExp(`cannot reach Redis at 127\\.0\\.0\\.1:${closed} .*\\(REDIS_URL\\)`),
    },
    setting: { env: { UPSTREAM_RATE: 'lots' }, names: /UPSTREAM_RATE: must be requests per period/ },
  };
});
afterAll(async () => harness?.close());

function expectPromptOneScreenError(result: CliResult, label: string, names?: RegExp): void {
  expect(result.signal, label).toBeNull();
  expect(result.code, `${label}\n${result.stderr}`).not.toBe(0);
  const lines = `${result.stdout}${result.stderr}`.trimEnd().split('\n');
  expect(lines.length, `${label}: more than one screen\n${result.stderr}`).toBeLessThanOrEqual(SCREEN_LINES);
  expect(result.stderr, `${label}: a stack trace`).not.toMatch(/\n\s+at /);
  expect(result.stderr, `${label}: a handle held the process open`).not.toContain('still open');
  if (names) expect(result.stderr, label).toMatch(names);
}

describe('every command exits promptly on a missing or wrong setting', () => {
  it('covers every command chaintap lists', async () => {
    const covered = new Set(COMMANDS.map(([args]) => args[0]));
    expect(listed.length).toBeGreaterThanOrEqual(14);
    // Commands added since this table was written are still run, below, with every setting wrong.
    expect(listed.filter((name) => covered.has(name)).sort()).toEqual([...covered].sort());
  });

  it.each(COMMANDS.map(([args, stops]) => [args.join(' '), args, stops] as const))(
    'chaintap %s',
    async (label, args, stops) => {
      for (const fault of stops) {
        const result = await runCli(args, { ...harness.env, OPS_PORT: '0', ...faults[fault].env }, EXIT_WITHIN_MS);
        expectPromptOneScreenError(result, `${label} (${fault})`, faults[fault].names);
      }
    },
  );

  it('needs UPSTREAM_BASE_URL only for the commands that call the upstream', async () => {
    for (const args of [['plan'], ['status'], ['tokens', 'list'], ['scheduler', '--help']]) {
      const result = await runCli(args, { ...harness.env, UPSTREAM_BASE_URL: '' }, EXIT_WITHIN_MS);
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
    }
  });

  it('any other command, with every setting wrong at once', async () => {
    const covered = new Set(COMMANDS.map(([args]) => args[0]));
    const others = listed.filter((name) => !covered.has(name));
    const everythingWrong = Object.assign(
      { ...harness.env, OPS_PORT: '0' },
      ...Object.values(faults).map((f) => f.env),
    );
    for (const name of others) {
      const result = await runCli([name], everythingWrong, EXIT_WITHIN_MS);
      expectPromptOneScreenError(result, `${name} (every setting wrong)`);
    }
  });
});
