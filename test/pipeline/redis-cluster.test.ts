import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { QUEUE_NAMES } from '../../src/datasets.ts';
import { keysPattern, queueKeyPrefix } from '../../src/queue/redis-keys.ts';
import { runCli, spawnCli } from '../support/cli.ts';
import { freePort, redisServerAvailable } from '../support/fault-redis-server.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { startRedisCluster, type TestRedisCluster } from '../support/redis-cluster.ts';
import { redisCommand } from '../support/redis-process.ts';

/**
 * The whole pipeline on a real 3-master Redis Cluster: `chaintap run-once` as users run it, with
 * REDIS_CLUSTER_NODES and nothing else about Redis. The cluster is this file's own, so the queue
 * prefix is the default one: with it the slots, and so the shards, of the queues are fixed.
 */
const PREFIX = 'chaintap';
const ADDRESSES = Array.from({ length: 12 }, (_, i) => `0x${(0xa000 + i).toString(16).padStart(64, '0')}`);
const coin = (i: number) => `0x${(0x1000 + i).toString(16).padStart(64, '0')}::coin${i}::COIN${i}`;
const TOKENS = ['0x2::sui::SUI', ...Array.from({ length: 39 }, (_, i) => coin(i))];
const TICK = '2026-11-21T12:00:00Z';

let cluster: TestRedisCluster;
let harness: PipelineHarness;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  harness = await createPipelineHarness({
    options: { REDIS_URL: '', REDIS_CLUSTER_NODES: cluster.nodesSetting, QUEUE_PREFIX: PREFIX, UPSTREAM_RATE: '200/s' },
  });
  await addWatchedTokens(harness.database, TOKENS);
  await addWatchedAddresses(harness.database, ADDRESSES, { includePnl: true });
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await cluster?.stop();
});
let lastOutput = '';
afterEach((context) => {
  if (context.task.result?.state === 'fail') console.log(lastOutput);
});

describe.skipIf(!redisServerAvailable())('on a 3-node Redis Cluster', () => {
  it('runs a whole cycle with `chaintap run-once`, its queues spread over the shards', async () => {
    const result = await runCli(['run-once', '--tick', TICK], harness.env);
    lastOutput = result.stdout + result.stderr;
    expect(result.code, lastOutput).toBe(0);
    expect(result.stderr).not.toMatch(/CROSSSLOT|MOVED|error/i);

    // Every job succeeded, at its first attempt, with one upstream request each.
    const runs = await harness.database.sql<{ dataset: string; status: string; attempts: number; n: number }[]>`
      select dataset, status, attempts, count(*)::int as n from ingestion_runs
      where tick = ${new Date(TICK)} group by 1, 2, 3 order by 1`;
    const prices = runs.find((run) => run.dataset === 'prices')?.n ?? 0;
    expect(runs).toEqual([
      { dataset: 'nfts', status: 'succeeded', attempts: 1, n: ADDRESSES.length },
      { dataset: 'positions', status: 'succeeded', attempts: 1, n: ADDRESSES.length },
      { dataset: 'prices', status: 'succeeded', attempts: 1, n: prices },
    ]);
    expect(prices).toBeGreaterThan(0);
    expect(harness.simulator.stats().requests).toBe(2 * ADDRESSES.length + prices);
    const [stored] = await harness.database.sql<{ n: number }[]>`select count(*)::int as n from position_snapshots`;
    expect(stored!.n).toBeGreaterThan(0);

    // Each queue's keys share one slot (BullMQ's scripts would fail with CROSSSLOT otherwise); the
    // queues of the three datasets sit on two shards, all five queues on three.
    const shardOf = (queue: (typeof QUEUE_NAMES)[number]) =>
      cluster.nodeOfKey(`${queueKeyPrefix(PREFIX, queue)}:${queue}:meta`);
    const datasetShards = new Set(
      await Promise.all(['prices', 'positions', 'nfts'].map((q) => shardOf(q as 'prices'))),
    );
    expect(datasetShards.size).toBeGreaterThanOrEqual(2);
    expect(new Set(await Promise.all(QUEUE_NAMES.map(shardOf))).size).toBe(3);
    // And the keys are really there, on more than one shard, every one of them hash-tagged.
    const perNode = await cluster.keysPerNode(keysPattern(PREFIX));
    expect(perNode.filter((keys) => keys > 0).length).toBeGreaterThanOrEqual(2);
    expect((await cluster.keysPerNode(`${PREFIX}:*`)).reduce((a, b) => a + b, 0)).toBe(0);

    // What an operator asks next works on the cluster too: queue depths and the last ticks.
    const status = await runCli(['status'], harness.env);
    lastOutput = status.stdout + status.stderr;
    expect(status.code, lastOutput).toBe(0);
    expect(status.stdout).toContain(`queues (Redis: the Redis Cluster of ${cluster.nodesSetting})`);
    expect(status.stdout).toMatch(/positions +waiting 0, active 0, delayed 0, failed 0, completed 12/);
    expect(status.stderr).not.toMatch(/CROSSSLOT|error/i);
  });

  it('serves the ops server from a worker on the cluster: readiness, queue depths, status page', async () => {
    const port = await freePort();
    const token = 'cluster-ops-token-1';
    const worker = spawnCli(['worker'], { ...harness.env, OPS_PORT: String(port), OPS_TOKEN: token });
    let output = '';
    worker.stderr?.on('data', (chunk) => (output += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        worker.stderr?.on('data', () => output.includes('chaintap running') && resolve());
        worker.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${output}`)));
      });
      const get = (path: string) =>
        fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect((await get('/readyz')).status).toBe(200);
      const metrics = await (await get('/metrics')).text();
      expect(metrics).toMatch(/chaintap_queue_jobs\{[^}]*queue="positions"[^}]*\} \d+/);
      const page = await get('/');
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('positions');
      expect(output).not.toMatch(/CROSSSLOT|"level":"error"/);
    } finally {
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker.once('exit', resolve));
    }
  });

  it('says which cluster it cannot reach, naming the setting', async () => {
    const result = await runCli(['status'], { ...harness.env, REDIS_CLUSTER_NODES: '127.0.0.1:1' }, 60_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach Redis at the Redis Cluster of 127.0.0.1:1');
    expect(result.stderr).toContain('(REDIS_CLUSTER_NODES)');
  });

  // Last: it turns on a password on every node, which the connections opened before keep.
  it('reaches a cluster that requires a password through REDIS_PASSWORD, and says so without it', async () => {
    const password = 'cluster-pw-93b1c0';
    for (const node of cluster.nodes) await redisCommand(node.port, 'CONFIG', 'SET', 'requirepass', password);
    const withPassword = await runCli(['status'], { ...harness.env, REDIS_PASSWORD: password }, 60_000);
    expect(withPassword.code, withPassword.stderr).toBe(0);
    const inUrls = cluster.nodes.map((node) => `redis://:${password}@${node.host}:${node.port}`).join(',');
    const withUrls = await runCli(['status'], { ...harness.env, REDIS_CLUSTER_NODES: inUrls }, 60_000);
    expect(withUrls.code, withUrls.stderr).toBe(0);
    const without = await runCli(['status'], harness.env, 60_000);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('(REDIS_CLUSTER_NODES)');
    expect(without.stderr + withUrls.stderr + withPassword.stderr).not.toContain(password);
  });
});
