import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { effectiveSettings } from '../../src/config/effective-settings.ts';
import { SETTING_NAMES } from '../../src/config/options.ts';
import { runCli } from '../support/cli.ts';

/** `chaintap config [--json]`: every setting's effective value, secrets masked, and where it came from. */
const Settings = z.array(
  z.strictObject({
    name: z.string(),
    value: z.string().nullable(),
    source: z.enum(['flag', 'environment', '.env', 'default']),
  }),
);

const API_KEY = 'k3y-that-must-not-show';
const DB_PASSWORD = 'db-pass-that-must-not-show';
const REDIS_PASSWORD = 'redis-pass-that-must-not-show';
const OPS_TOKEN = 'ops-token-that-must-not-show';
const SECRETS = [API_KEY, DB_PASSWORD, REDIS_PASSWORD, OPS_TOKEN];

const folder = mkdtempSync(join(tmpdir(), 'chaintap-config-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('chaintap config', () => {
  it('--json: every setting, each secret masked, with its source: flag, environment, .env, default', async () => {
    // .env sets OPS_TOKEN, REDIS_URL and QUEUE_PREFIX; the environment's QUEUE_PREFIX wins over it.
    writeFileSync(
      join(folder, '.env'),
      `OPS_TOKEN=${OPS_TOKEN}\nREDIS_URL=redis://:${REDIS_PASSWORD}@127.0.0.1:6379\nQUEUE_PREFIX=from-dotenv\n`,
    );
    const env = {
      UPSTREAM_API_KEY: API_KEY,
      DATABASE_URL: `postgres://chaintap:${DB_PASSWORD}@db.example:5432/chaintap`,
      QUEUE_PREFIX: 'from-env',
      UPSTREAM_RPS: '2',
    };
    const result = await runCli(['config', '--json', '--concurrency', '4'], env, 30_000, folder);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const secret of SECRETS) expect(result.stdout).not.toContain(secret);
    const settings = Settings.parse(JSON.parse(result.stdout));
    expect(settings.map((setting) => setting.name)).toEqual(SETTING_NAMES);
    const byName = Object.fromEntries(settings.map(({ name, value, source }) => [name, { value, source }]));
    expect(byName).toMatchObject({
      UPSTREAM_API_KEY: { value: '********', source: 'environment' },
      DATABASE_URL: { value: 'postgres://chaintap:********@db.example:5432/chaintap', source: 'environment' },
      OPS_TOKEN: { value: '********', source: '.env' },
      REDIS_URL: { value: 'redis://:********@127.0.0.1:6379', source: '.env' },
      QUEUE_PREFIX: { value: 'from-env', source: 'environment' },
      UPSTREAM_CONCURRENCY: { value: '4', source: 'flag' },
      // Set through its alias: the rate says so.
      UPSTREAM_RATE: { value: '2/s', source: 'environment' },
      UPSTREAM_RPS: { value: '2', source: 'environment' },
      DATABASE_POOL_SIZE: { value: '10', source: 'default' },
      DATASET_PRIORITY: { value: 'prices,positions,nfts', source: 'default' },
      OPS_ADMIN_TOKEN: { value: null, source: 'default' },
      UPSTREAM_BASE_URL: { value: null, source: 'default' },
    });
  });

  it('as a table, secrets masked; a bad setting is refused naming it, its value not shown', async () => {
    const table = await runCli(['config'], { UPSTREAM_API_KEY: API_KEY, OPS_TOKEN }, 30_000, folder);
    expect(table.code).toBe(0);
    for (const secret of SECRETS) expect(table.stdout).not.toContain(secret);
    expect(table.stdout.split('\n')[0]).toMatch(/^setting +value +source$/);
    expect(table.stdout).toMatch(/\nUPSTREAM_API_KEY +\*{8} +environment\n/);
    expect(table.stdout).toMatch(/\nOPS_TOKEN +\*{8} +environment\n/);
    expect(table.stdout).toMatch(/\nOPS_ADMIN_TOKEN +\(unset\) +default\n/);
    const bad = await runCli(['config'], { UPSTREAM_TIMEOUT_MS: 'soon-and-secret' }, 30_000, folder);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('UPSTREAM_TIMEOUT_MS');
    expect(bad.stderr).not.toContain('soon-and-secret');
  });

  it('masks any setting named as a secret, and a password in every URL of a list', () => {
    const settings = effectiveSettings(
      {},
      {
        REDIS_URL: undefined,
        REDIS_CLUSTER_NODES: `redis://user:${REDIS_PASSWORD}@h1:7000,redis://user:${REDIS_PASSWORD}@h2:7001`,
        OPS_ADMIN_TOKEN: OPS_TOKEN,
        DATABASE_READ_URL: `postgresql://reader:${DB_PASSWORD}@replica/chaintap`,
      },
      new Set(),
    );
    expect(JSON.stringify(settings)).not.toContain(REDIS_PASSWORD);
    expect(JSON.stringify(settings)).not.toContain(DB_PASSWORD);
    expect(JSON.stringify(settings)).not.toContain(OPS_TOKEN);
    const value = (name: string) => settings.find((setting) => setting.name === name)!.value;
    expect(value('REDIS_CLUSTER_NODES')).toBe('redis://user:********@h1:7000,redis://user:********@h2:7001');
    expect(value('OPS_ADMIN_TOKEN')).toBe('********');
    expect(value('DATABASE_READ_URL')).toBe('postgresql://reader:********@replica/chaintap');
  });
});
