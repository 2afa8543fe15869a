import { Worker, type Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/client.ts';
import { ConfigError } from '../../src/errors.ts';
import { closeQueues, createQueues, type Queues } from '../../src/queue/queues.ts';
import { createRedisConnection, type RedisClient } from '../../src/runtime/redis-connection.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { startOpsServer, type RunningOpsServer } from './ops-test-server.ts';
import { queueKeyPrefix } from '../../src/queue/redis-keys.ts';

const READ = 'read-token-7c1e52a0';
const ADMIN = 'admin-token-9d4b0f13';

let database: TestDatabase;
let testRedis: TestRedis;
let redis: RedisClient;
let queues: Queues;
const servers: RunningOpsServer[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  testRedis = createTestRedis();
  redis = createRedisConnection(testRedis.url, 'producer');
  queues = createQueues(redis, testRedis.prefix);
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

afterAll(async () => {
  await closeQueues(queues);
  redis.disconnect();
  await testRedis.cleanup();
  await database.drop();
});

async function start(options: Parameters<typeof startOpsServer>[0]['options'] = {}) {
  const server = await startOpsServer({ database, redis, queues, options });
  servers.push(server);
  return server;
}

/**
 * Fresh queues holding one job in each state the board acts on: nfts `w1` waiting and `d1`
 * delayed, positions `f1` failed (by a real worker whose processor throws), maintenance paused.
 */
async function seedQueues(): Promise<void> {
  for (const queue of Object.values(queues)) await queue.obliterate({ force: true });
  await queues.nfts.add('nfts', { address: '0xw' }, { jobId: 'w1' });
  await queues.nfts.add('nfts', { address: '0xd' }, { jobId: 'd1', delay: 3_600_000 });
  // The board obliterates only a paused queue.
  await queues.maintenance.add('maintenance', {}, { jobId: 'm1' });
  await queues.maintenance.pause();
  const connection = createRedisConnection(testRedis.url, 'worker');
  const worker = new Worker(
    'positions',
    async () => {
      throw new Error('seeded failure');
    },
    { connection, prefix: queueKeyPrefix(testRedis.prefix, 'positions'), autorun: false },
  );
  const failed = new Promise((resolve) => worker.once('failed', resolve));
  await queues.positions.add('positions', { address: '0xf' }, { jobId: 'f1', attempts: 1 });
  void worker.run();
  await failed;
  await worker.close();
  connection.disconnect();
}

/** Everything a board action could change: per queue paused, counts, concurrency, rate limit; per seeded job its state, data, delay, priority. */
async function boardState() {
  const queueState = async (queue: Queue) => ({
    paused: await queue.isPaused(),
    counts: await queue.getJobCounts(),
    concurrency: await queue.getGlobalConcurrency(),
    rateLimit: await queue.getGlobalRateLimit(),
  });
  const jobState = async (queue: Queue, id: string) => {
    const job = await queue.getJob(id);
    return job && { state: await job.getState(), data: job.data, delay: job.delay, priority: job.priority };
  };
  return {
    queues: Object.fromEntries(
      await Promise.all(Object.entries(queues).map(async ([name, queue]) => [name, await queueState(queue)])),
    ),
    w1: await jobState(queues.nfts, 'w1'),
    d1: await jobState(queues.nfts, 'd1'),
    f1: await jobState(queues.positions, 'f1'),
  };
}

/** Every action of Bull Board 9's API, with a body it accepts, against the seeded jobs. */
const BOARD_ACTIONS: [method: string, path: string, body?: unknown][] = [
  ['PUT', '/queues/api/queues/pause'],
  ['PUT', '/queues/api/queues/resume'],
  ['POST', '/queues/api/queues/nfts/add', { name: 'nfts', data: { address: '0xadded' } }],
  ['PUT', '/queues/api/queues/positions/retry/failed'],
  ['PUT', '/queues/api/queues/nfts/promote'],
  ['PUT', '/queues/api/queues/positions/clean/failed'],
  ['PUT', '/queues/api/queues/nfts/pause'],
  ['PUT', '/queues/api/queues/nfts/resume'],
  ['PUT', '/queues/api/queues/nfts/concurrency', { concurrency: 1 }],
  ['PUT', '/queues/api/queues/nfts/rate-limit', { max: 1, duration: 60_000 }],
  ['PUT', '/queues/api/queues/nfts/rate-limit/release'],
  ['PUT', '/queues/api/queues/nfts/empty'],
  ['PUT', '/queues/api/queues/maintenance/obliterate', { force: true }],
  ['PUT', '/queues/api/queues/positions/f1/retry'],
  ['PUT', '/queues/api/queues/positions/f1/clean'],
  ['PUT', '/queues/api/queues/nfts/d1/promote'],
  ['PATCH', '/queues/api/queues/nfts/w1/update-data', { jobData: { address: '0xevil' } }],
  ['PATCH', '/queues/api/queues/nfts/d1/delay', { runAt: Date.now() + 60_000 }],
  ['PATCH', '/queues/api/queues/nfts/w1/priority', { priority: 5 }],
];

function act(server: RunningOpsServer, [method, path, body]: (typeof BOARD_ACTIONS)[number], headers = {}) {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body ?? {}),
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('ops server exposure', () => {
  it('refuses a non-loopback OPS_HOST without OPS_TOKEN, naming both settings', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'ops.example.com', '127.example.com']) {
      const refused = start({ OPS_HOST: host });
      await expect(refused, host).rejects.toBeInstanceOf(ConfigError);
      await expect(refused, host).rejects.toThrow(/OPS_HOST is .*OPS_TOKEN is not set/);
    }
    // With the token it listens there; on loopback it needs none.
    const exposed = await start({ OPS_HOST: '0.0.0.0', OPS_TOKEN: READ });
    expect(new URL(exposed.url).port).not.toBe('');
    for (const host of ['127.0.0.1', 'localhost', '::1']) await start({ OPS_HOST: host });
  });

  it('refuses an OPS_ADMIN_TOKEN equal to OPS_TOKEN', async () => {
    await expect(start({ OPS_TOKEN: READ, OPS_ADMIN_TOKEN: READ })).rejects.toThrow(
      'OPS_ADMIN_TOKEN must differ from OPS_TOKEN',
    );
  });

  it.each([['worker'], ['start'], ['scheduler', '--ops']])(
    '`chaintap %s` exits 1 at once with the message alone on a non-loopback OPS_HOST without OPS_TOKEN',
    async (...args) => {
      // Unreachable stores: a command that went on to open them would hang or fail on something else.
      const started = Date.now();
      const result = await runCli(
        args,
        {
          OPS_HOST: '0.0.0.0',
          DATABASE_URL: 'postgres://postgres@127.0.0.1:1/chaintap',
          REDIS_URL: 'redis://127.0.0.1:1',
          UPSTREAM_API_KEY: 'not-used-key',
        },
        30_000,
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: OPS_HOST is 0\.0\.0\.0, beyond loopback, and OPS_TOKEN is not set/m);
      expect(result.stderr).not.toMatch(/^\s+at /m);
      expect(result.stderr).not.toContain('not-used-key');
      expect(Date.now() - started).toBeLessThan(20_000);
    },
  );
});

describe('Bull Board actions', () => {
  beforeEach(seedQueues);

  it('are refused with 403 to the read token, and change nothing, when the server has no OPS_ADMIN_TOKEN', async () => {
    const server = await start({ OPS_TOKEN: READ });
    const before = await boardState();
    expect(before.f1?.state).toBe('failed');
    expect(before.d1?.state).toBe('delayed');
    for (const action of BOARD_ACTIONS) {
      const response = await act(server, action, bearer(READ));
      expect(response.status, action.join(' ')).toBe(403);
      expect(await response.json(), action.join(' ')).toMatchObject({
        message: 'Bull Board is read-only: set OPS_ADMIN_TOKEN to allow its actions',
      });
    }
    expect(await boardState()).toEqual(before);
    // The board itself is read-only too (no action buttons in its UI).
    const api = (await (await fetch(`${server.url}/queues/api/queues`, { headers: bearer(READ) })).json()) as {
      queues: { readOnlyMode: boolean }[];
    };
    expect(api.queues.map((queue) => queue.readOnlyMode)).toEqual(api.queues.map(() => true));
  });

  it('are refused with 403 on loopback without any token: reads are open, actions are not', async () => {
    const server = await start();
    expect((await fetch(`${server.url}/queues/api/queues`)).status).toBe(200);
    const before = await boardState();
    for (const action of BOARD_ACTIONS) expect((await act(server, action)).status, action.join(' ')).toBe(403);
    expect(await boardState()).toEqual(before);
  });

  it('are refused to the read token when the server has OPS_ADMIN_TOKEN, however the path is spelt', async () => {
    const server = await start({ OPS_TOKEN: READ, OPS_ADMIN_TOKEN: ADMIN });
    const before = await boardState();
    for (const action of BOARD_ACTIONS) {
      const response = await act(server, action, bearer(READ));
      expect(response.status, action.join(' ')).toBe(403);
      expect(await response.json(), action.join(' ')).toMatchObject({
        message: 'OPS_ADMIN_TOKEN required for Bull Board actions; OPS_TOKEN only reads',
      });
    }
    for (const path of [
      '/queues/%61pi/queues/nfts/pause',
      '/queues/api/queues/nfts/pause/',
      '//queues/api/queues/nfts/pause',
      '/queues/api/queues/nfts/pause?token=' + READ,
    ]) {
      const response = await fetch(`${server.url}${path}`, { method: 'PUT', headers: bearer(READ) });
      expect(response.status, path).toBeGreaterThanOrEqual(400);
    }
    expect(await boardState()).toEqual(before);
  });

  it('each work with the admin token', async () => {
    const server = await start({ OPS_TOKEN: READ, OPS_ADMIN_TOKEN: ADMIN });
    const api = (await (await fetch(`${server.url}/queues/api/queues`, { headers: bearer(READ) })).json()) as {
      queues: { readOnlyMode: boolean }[];
    };
    expect(api.queues.map((queue) => queue.readOnlyMode)).toEqual(api.queues.map(() => false));
    for (const action of BOARD_ACTIONS) {
      await seedQueues();
      const before = await boardState();
      const response = await act(server, action, bearer(ADMIN));
      expect(response.status, `${action.join(' ')}: ${await response.clone().text()}`).toBeLessThan(300);
      // Every one changes something, but: resume and release undo what the seeding did not do, and
      // the board's clean spares jobs that finished in the last 5 s.
      if (!/resume|release|clean\/failed/.test(action[1])) {
        expect(await boardState(), action.join(' ')).not.toEqual(before);
      }
    }
  });
});

describe('the session cookie', () => {
  const cookieOf = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!;

  it('holds neither token, and carries the access of the token that logged in', async () => {
    await seedQueues();
    const server = await start({ OPS_TOKEN: READ, OPS_ADMIN_TOKEN: ADMIN });
    const readVisit = await fetch(`${server.url}/queues?token=${READ}`);
    const adminVisit = await fetch(`${server.url}/queues?token=${ADMIN}`);
    const readCookie = cookieOf(readVisit);
    const adminCookie = cookieOf(adminVisit);
    expect(readVisit.headers.get('set-cookie')).toMatch(
      /^chaintap_ops_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    for (const cookie of [readCookie, adminCookie]) {
      for (const secret of [READ, ADMIN]) {
        expect(cookie).not.toContain(secret);
        expect(decodeURIComponent(cookie)).not.toContain(secret);
        expect(Buffer.from(cookie.split('=')[1]!, 'base64url').toString('latin1')).not.toContain(secret);
      }
    }
    const pause: (typeof BOARD_ACTIONS)[number] = ['PUT', '/queues/api/queues/nfts/pause'];
    expect((await fetch(`${server.url}/queues/api/queues`, { headers: { cookie: readCookie } })).status).toBe(200);
    expect((await act(server, pause, { cookie: readCookie })).status).toBe(403);
    expect(await queues.nfts.isPaused()).toBe(false);
    expect((await act(server, pause, { cookie: adminCookie })).status).toBe(200);
    expect(await queues.nfts.isPaused()).toBe(true);
    await queues.nfts.resume();
  });

  it('is refused when it holds the raw token, is forged, or comes from another process', async () => {
    const server = await start({ OPS_TOKEN: READ, OPS_ADMIN_TOKEN: ADMIN });
    const other = await start({ OPS_TOKEN: READ, OPS_ADMIN_TOKEN: ADMIN });
    const otherCookie = cookieOf(await fetch(`${other.url}/?token=${ADMIN}`));
    for (const cookie of [
      `chaintap_ops_session=${READ}`,
      `chaintap_ops_session=${ADMIN}`,
      `chaintap_ops_token=${READ}`,
      'chaintap_ops_session=guess',
      otherCookie,
    ]) {
      expect((await fetch(`${server.url}/queues/api/queues`, { headers: { cookie } })).status, cookie).toBe(401);
    }
  });
});

describe('/healthz and /readyz', () => {
  it('stay open, and /readyz tells why a check failed only to a token holder', async () => {
    const closed = createRedisConnection(testRedis.url, 'producer');
    await new Promise((resolve) => closed.once('ready', resolve));
    await closed.quit();
    const server = await startOpsServer({ database, redis: closed, queues, options: { OPS_TOKEN: READ } });
    servers.push(server);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const open = await fetch(`${server.url}/readyz`);
    expect(open.status).toBe(503);
    expect(await open.json()).toEqual({
      status: 'unavailable',
      ready: false,
      checks: { postgres: { ok: true }, redis: { ok: false } },
    });
    const detailed = await fetch(`${server.url}/readyz`, { headers: bearer(READ) });
    expect(await detailed.json()).toMatchObject({ checks: { redis: { ok: false, error: expect.any(String) } } });
  });
});

describe('logs', () => {
  it('never hold either token', async () => {
    await seedQueues();
    // Unreachable Postgres: the status page and /metrics log what failed, for requests carrying tokens.
    const unreachable = createDatabase('postgres://postgres@127.0.0.1:1/chaintap', { max: 1 });
    try {
      const server = await startOpsServer({
        database: unreachable,
        redis,
        queues,
        options: { OPS_TOKEN: READ, OPS_ADMIN_TOKEN: ADMIN },
      });
      servers.push(server);
      await fetch(`${server.url}/?token=${READ}`);
      await fetch(`${server.url}/?token=${ADMIN}`);
      await fetch(`${server.url}/metrics`, { headers: bearer(ADMIN) });
      await fetch(`${server.url}/metrics?token=wrong-${ADMIN}`);
      await act(server, ['PUT', `/queues/api/queues/nfts/pause?token=${READ}`], bearer(READ));
      await act(server, ['PUT', '/queues/api/queues/nfts/pause'], bearer(ADMIN));
      expect(server.logLines.length).toBeGreaterThan(1);
      const lines = server.logLines.join('');
      expect(lines).not.toContain(READ);
      expect(lines).not.toContain(ADMIN);
    } finally {
      await unreachable.close();
    }
  });
});
