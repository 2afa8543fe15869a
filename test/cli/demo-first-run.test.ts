import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { startChaintap, type ChaintapProcess } from '../support/fault-processes.ts';
import { freePort } from '../support/fault-redis-server.ts';

// `chaintap demo` on a machine where PostgreSQL and Redis are installed but not running: it starts
// throwaway instances itself, runs, and removes them when it stops. Where they cannot be had, one
// screen says what to install.
const demoDirectories = () => readdirSync(tmpdir()).filter((name) => name.startsWith('chaintap-demo-'));
let demo: ChaintapProcess | undefined;
afterAll(async () => {
  await demo?.stop('SIGKILL');
});

describe('chaintap demo, first run', () => {
  it('starts throwaway PostgreSQL and Redis when none answers, serves the status page, and removes them on Ctrl-C', async () => {
    const before = new Set(demoDirectories());
    const [pgPort, redisPort, opsPort] = await Promise.all([freePort(), freePort(), freePort()]);
    demo = startChaintap('demo', ['demo'], {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/chaintap`,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      OPS_PORT: String(opsPort),
      LOG_LEVEL: 'info',
    });
    await demo.waitForLine(/status page at/, 90_000);
    await demo.waitForLine(/"msg":"ops server listening/, 30_000);
    expect(demo.lines.filter((line) => /^started a throwaway (PostgreSQL|Redis)/.test(line))).toHaveLength(2);
    const mine = demoDirectories().filter((name) => !before.has(name));
    expect(mine.length).toBe(2);
    // Its ops server answers, with the sample watchlist's tokens on the status page.
    const status = await fetch(`http://127.0.0.1:${opsPort}/healthz`);
    expect(status.status).toBe(200);
    expect(demo.lines.join('\n')).not.toMatch(/ECONNREFUSED/);
    // A read-only login for BI tools, its password made for this run.
    const login = demo.lines.find((line) => line.startsWith('read-only SQL for BI tools'));
    const url = /(postgres:\/\/chaintap_demo_reader:[^@\s]+@\S+)$/.exec(login ?? '')?.[1];
    expect(url, login).toBeDefined();
    const reader = postgres(url!, { max: 1, onnotice: () => {} });
    try {
      await expect(reader`select count(*) from latest_portfolio`).resolves.toHaveLength(1);
      await expect(reader`select count(*) from watched_addresses`).rejects.toThrow(/permission denied/);
    } finally {
      await reader.end();
    }

    demo.child.kill('SIGINT');
    const exit = await demo.exited;
    expect(exit.code).toBe(0);
    for (const name of mine) expect(existsSync(`${tmpdir()}/${name}`)).toBe(false);
  }, 120_000);

  it('says in one screen what it needs when a server it cannot start does not answer', async () => {
    const result = await runCli(['demo'], {
      DATABASE_URL: 'postgres://postgres:secret-password@db.invalid:5432/chaintap',
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe(
      'error: chaintap demo needs PostgreSQL, and postgres://db.invalid:5432/chaintap does not answer: it is not on this machine.',
    );
    expect(result.stderr).toMatch(/sudo apt-get install postgresql redis-server/);
    expect(result.stderr).toMatch(/docker compose up -d postgres redis/);
    expect(result.stderr).not.toMatch(/secret-password|ECONNREFUSED|at .*\.ts:\d+/);
    expect(lines.length).toBeLessThan(15);
  });
});
