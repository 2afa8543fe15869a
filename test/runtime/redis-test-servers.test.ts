import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type TestRedisCluster } from '../support/redis-cluster.ts';
import { startRedisSentinel, type TestRedisSentinel } from '../support/redis-sentinel.ts';

/** One command on a connection of its own to 127.0.0.1:`port`, to look at one node directly. */
async function onNode(port: number, command: string, ...args: string[]): Promise<unknown> {
  const redis = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined); // a refused connection rejects the call below
  try {
    await redis.connect();
    return await redis.call(command, ...args);
  } finally {
    redis.disconnect();
  }
}

async function refusesConnections(port: number): Promise<boolean> {
  return onNode(port, 'PING').then(
    () => false,
    () => true,
  );
}

describe('test Redis topologies', () => {
  describe('startRedisCluster', () => {
    let cluster: TestRedisCluster;
    beforeAll(async () => {
      cluster = await startRedisCluster();
    });
    afterAll(() => cluster?.stop());

    it('serves a Cluster client, keys of different hash tags on different masters', async () => {
      expect(cluster.nodes).toHaveLength(3);
      expect(cluster.nodesSetting).toBe(cluster.nodes.map((node) => `127.0.0.1:${node.port}`).join(','));
      const keys = Array.from({ length: 12 }, (_, i) => `{tag${i}}:probe`);
      const owners = await Promise.all(keys.map((key) => cluster.nodeOfKey(key)));
      expect(new Set(owners).size).toBeGreaterThanOrEqual(2);

      const client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 1 } });
      try {
        for (const key of keys) await client.set(key, `value of ${key}`);
        for (const key of keys) expect(await client.get(key)).toBe(`value of ${key}`);
      } finally {
        client.disconnect();
      }
      // Each key is on the master nodeOfKey names, looked at on that node alone.
      const expected = cluster.nodes.map((_, index) => owners.filter((owner) => owner === index).length);
      expect(await cluster.keysPerNode('*:probe')).toEqual(expected);
      for (const [i, key] of keys.entries())
        expect(await onNode(cluster.nodes[owners[i]].port, 'GET', key)).toBe(`value of ${key}`);
    });

    it('stop kills every node, and can be called again', async () => {
      await cluster.stop();
      await cluster.stop();
      for (const node of cluster.nodes) expect(await refusesConnections(node.port)).toBe(true);
    });
  });

  describe('startRedisSentinel', () => {
    let setup: TestRedisSentinel;
    beforeAll(async () => {
      setup = await startRedisSentinel();
    });
    afterAll(() => setup?.stop());

    const sentinelClient = () => new Redis({ sentinels: setup.sentinels, name: setup.name, maxRetriesPerRequest: 1 });

    /** A sentinel-mode client writes `key` and waits until the replica has it, then closes. */
    async function writeReplicated(key: string, value: string): Promise<void> {
      const client = sentinelClient();
      try {
        await client.set(key, value);
        expect(await client.call('WAIT', '1', '5000')).toBe(1);
      } finally {
        client.disconnect();
      }
    }

    /** After a failover: `to` is the master, `from` its replica, and a new client writes to `to`. */
    async function expectFailedOver(move: { from: { port: number }; to: { port: number } }, keys: string[]) {
      expect(move.to.port).not.toBe(move.from.port);
      expect(await setup.master()).toEqual({ host: '127.0.0.1', port: move.to.port });
      expect(((await onNode(move.to.port, 'ROLE')) as unknown[])[0]).toBe('master');
      expect(((await onNode(move.from.port, 'ROLE')) as unknown[]).slice(0, 4)).toEqual([
        'slave',
        '127.0.0.1',
        move.to.port,
        'connected',
      ]);
      const client = sentinelClient();
      try {
        for (const key of keys) expect(await client.get(key)).toBe(`value of ${key}`);
        await client.set(`written after ${move.to.port}`, 'yes');
      } finally {
        client.disconnect();
      }
      expect(await onNode(move.to.port, 'GET', `written after ${move.to.port}`)).toBe('yes');
    }

    it('names its sentinels and master', async () => {
      expect(setup.name).toBe('chaintap-test');
      expect(setup.sentinels).toHaveLength(3);
      expect(setup.sentinelsSetting).toBe(setup.sentinels.map((s) => `127.0.0.1:${s.port}`).join(','));
      const master = await setup.master();
      expect(((await onNode(master.port, 'ROLE')) as unknown[])[0]).toBe('master');
    });

    it('failover(): the master dies, a replica takes over, the old master comes back as its replica', async () => {
      await writeReplicated('before kill', 'value of before kill');
      const move = await setup.failover();
      await expectFailedOver(move, ['before kill']);
    });

    it('sentinelFailover(): SENTINEL FAILOVER moves the master, the old one becomes its replica', async () => {
      await writeReplicated('before sentinel failover', 'value of before sentinel failover');
      const move = await setup.sentinelFailover();
      await expectFailedOver(move, ['before kill', 'before sentinel failover']);
    });

    it('stop kills every process, and can be called again', async () => {
      const master = await setup.master();
      await setup.stop();
      await setup.stop();
      expect(await refusesConnections(master.port)).toBe(true);
      for (const sentinel of setup.sentinels) expect(await refusesConnections(sentinel.port)).toBe(true);
    });
  });
});
