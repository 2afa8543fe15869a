import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { freePort } from '../support/fault-redis-server.ts';
import { redisCommand, startRedisProcess, type RedisProcess } from '../support/redis-process.ts';

/**
 * A Redis that requires a password (and an ACL user), reached through REDIS_PASSWORD and
 * REDIS_USERNAME beside a bare REDIS_URL, or the URL's own credentials; a wrong password is one
 * clear line that never shows it.
 */
const PASSWORD = 'redis-pw-7c1e9a';
const USER_PASSWORD = 'acl-pw-40d2b8';
let redis: RedisProcess;
let dir: string;
let database: TestDatabase;
let base: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chaintap-redis-auth-'));
  const logFile = join(dir, 'redis.log');
  redis = await startRedisProcess({
    binary: 'redis-server',
    port: freePort,
    args: (port) => [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--logfile',
      logFile,
    ],
    logFile,
  });
  // Set once it answered: the start waits for an unauthenticated PING.
  await redisCommand(redis.port, 'ACL', 'SETUSER', 'chaintap', 'on', `>${USER_PASSWORD}`, '~*', '&*', '+@all');
  await redisCommand(redis.port, 'CONFIG', 'SET', 'requirepass', PASSWORD);
  database = await createTestDatabase({ migrate: true });
  base = { DATABASE_URL: database.url, QUEUE_PREFIX: 'auth-test' };
});
afterAll(async () => {
  await redis?.kill();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Redis credentials', () => {
  const url = () => `redis://127.0.0.1:${redis.port}`;

  it('reaches a Redis with a password given as REDIS_PASSWORD, in the URL, or as an ACL user', async () => {
    const ways: Record<string, string>[] = [
      { REDIS_URL: url(), REDIS_PASSWORD: PASSWORD },
      { REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${redis.port}` },
      { REDIS_URL: url(), REDIS_USERNAME: 'chaintap', REDIS_PASSWORD: USER_PASSWORD },
    ];
    for (const way of ways) {
      const result = await runCli(['status'], { ...base, ...way }, 60_000);
      expect(result.code, `${JSON.stringify(Object.keys(way))}\n${result.stderr}`).toBe(0);
    }
  });

  it('says a wrong password in one line naming the setting, never showing it', async () => {
    const result = await runCli(['status'], { ...base, REDIS_URL: url(), REDIS_PASSWORD: 'wrong-pw-5512' }, 60_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot reach Redis at 127\.0\.0\.1:\d+ .*(WRONGPASS|invalid username-password)/);
    expect(result.stderr).toContain('(REDIS_URL)');
    expect(result.stderr + result.stdout).not.toContain('wrong-pw-5512');
    const inUrl = await runCli(['status'], { ...base, REDIS_URL: `redis://:wrong-pw-5512@127.0.0.1:${redis.port}` });
    expect(inUrl.code).toBe(1);
    expect(inUrl.stderr + inUrl.stdout).not.toContain('wrong-pw-5512');
  });
});
