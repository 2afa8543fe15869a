import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// What a command loads to start: `--help`, `--version` and `tokens list` start without the modules
// of the long-running services or Drizzle (which takes about a second to load on Node 24), so that
// they answer at once. The start-up time itself is a benchmark (bench/scenarios/cli-startup.ts).
const RECORDER = fileURLToPath(new URL('../support/loaded-modules.mjs', import.meta.url));
/** Modules of the long-running services, which a worker loads when it starts. */
const SERVICE_MODULES = ['@bull-board/api', 'bullmq', 'fastify', 'ioredis', 'prom-client'];

let database: TestDatabase;
const folder = mkdtempSync(join(tmpdir(), 'chaintap-startup-'));
beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql`insert into watched_tokens (coin_type) values ('0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI')`;
});
afterAll(async () => {
  await database?.drop();
  rmSync(folder, { recursive: true, force: true });
});

/** Runs `chaintap <args>` and returns its result and the npm packages it loaded. */
async function start(args: string[], env: Record<string, string> = {}): Promise<CliResult & { packages: string[] }> {
  const log = join(folder, `${args.join('-')}.log`);
  const result = await runCli(args, { ...env, NODE_OPTIONS: `--import=${RECORDER}`, CHAINTAP_LOADED_MODULES: log });
  const packages = new Set(
    readFileSync(log, 'utf8')
      .split('\n')
      .flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []),
  );
  return { ...result, packages: [...packages].sort() };
}

describe('chaintap start-up', () => {
  it('--help and --version load commander alone', async () => {
    for (const flag of ['--help', '--version']) {
      const result = await start([flag]);
      expect(result.code, flag).toBe(0);
      expect(result.packages, flag).toEqual(['commander']);
    }
  });

  it('tokens list loads the settings, postgres.js and the address checks, no service module and no Drizzle', async () => {
    const result = await start(['tokens', 'list'], { DATABASE_URL: database.url });
    expect(result).toMatchObject({ code: 0, stdout: `${'0x'.padEnd(65, '0')}2::sui::SUI\n` });
    // The address checks' libraries come with the watchlist store (about 20 ms of a start, measured).
    expect(result.packages).toEqual([
      '@noble/hashes',
      '@scure/base',
      '@ton/core',
      'commander',
      'node-cron',
      'postgres',
      'zod',
    ]);
  });

  it('a service command still loads what it needs when it runs, Drizzle aside', async () => {
    // Nothing listens there: refused once its implementation has loaded.
    const result = await start(['worker'], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/chaintap',
      UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
      UPSTREAM_API_KEY: 'not-used',
      OPS_PORT: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot connect to PostgreSQL at 127.0.0.1:1 (DATABASE_URL)');
    for (const name of SERVICE_MODULES) expect(result.packages).toContain(name);
    expect(result.packages).not.toContain('drizzle-orm');
  });

  it('each command declares its options up front: --help lists them', async () => {
    for (const [args, option] of [
      [['simulate', '--help'], '--rate-limit-window <kind>'],
      [['status', '--help'], '--json'],
      [['raw', 'list', '--help'], '--limit <n>'],
      [['backfill', 'prices', '--help'], '--interval <step>'],
      [['addresses', 'add', '--help'], '--nft-chain <chain>'],
      [['config', '--help'], '--json'],
      [['watchlist', 'apply', '--help'], '--json'],
      [['alerts', 'test', '--help'], '--json'],
    ] as const) {
      const result = await start([...args]);
      expect(result.stdout, args.join(' ')).toContain(option);
      expect(result.packages, args.join(' ')).toEqual(['commander']);
    }
  });
});
