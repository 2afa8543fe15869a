import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './fault-redis-server.ts';
import { redisCommand, startRedisProcess, waitUntil, type RedisAddress, type RedisProcess } from './redis-process.ts';

/**
 * A real Redis Sentinel setup of the test's own, on free local ports: a master, `replicas` replicas
 * and `sentinels` sentinels that watch it under `name`, tuned to notice a dead master within two seconds.
 */
export interface TestRedisSentinel {
  /** The master's name as the sentinels know it (REDIS_SENTINEL_NAME). */
  name: string;
  sentinels: RedisAddress[];
  /** `127.0.0.1:p1,127.0.0.1:p2,...`: the form of REDIS_SENTINELS. */
  sentinelsSetting: string;
  /** The master, as a sentinel names it now. */
  master(): Promise<RedisAddress>;
  /**
   * The master dies: its process is SIGKILLed, the sentinels elect and promote a replica, then the
   * old master is started again (same port and directory) as a replica of the new one. Resolves once
   * the setup is whole again (see `waitUntilWhole`). Writes the replicas had not received are lost,
   * as in production: a test that needs a key to survive writes it with WAIT first. With `how`
   * 'shutdown' the master is sent SHUTDOWN instead, the planned way: Redis 7 waits until its
   * replicas have every write (up to shutdown-timeout, 10 s) before it exits.
   */
  failover(how?: 'kill' | 'shutdown'): Promise<{ from: RedisAddress; to: RedisAddress }>;
  /** The coordinated one, `SENTINEL FAILOVER <name>`: the sentinels promote a replica and turn the old master into one. */
  sentinelFailover(): Promise<{ from: RedisAddress; to: RedisAddress }>;
  /** Kills every process, waits for the exits and removes the directories. Safe to call again. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
/**
 * Bounds of each wait. Generous: an automatic failover cannot start within 2 × failover-timeout
 * (10 s) of the previous one, and the sentinels turn a demoted master into a replica only after
 * seeing it as a master for 8 s, then asking it with INFO, every 10 s.
 */
const START_TIMEOUT_MS = 30_000;
const FAILOVER_TIMEOUT_MS = 40_000;

interface DataNode {
  port: number;
  dir: string;
  process: RedisProcess;
}

export async function startRedisSentinel({
  replicas = 1,
  sentinels = 3,
  name = 'chaintap-test',
}: { replicas?: number; sentinels?: number; name?: string } = {}): Promise<TestRedisSentinel> {
  if (replicas < 1 || sentinels < 1) throw new Error('startRedisSentinel: at least 1 replica and 1 sentinel');
  const dirs: string[] = [];
  const dataNodes: DataNode[] = [];
  const sentinelProcesses: RedisProcess[] = [];
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await Promise.all([...dataNodes.map((node) => node.process.kill()), ...sentinelProcesses.map((s) => s.kill())]);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    })());
  const newDir = (kind: string) => {
    const dir = mkdtempSync(join(tmpdir(), `chaintap-redis-${kind}-`));
    dirs.push(dir);
    return dir;
  };
  const startDataNode = async (dir: string, port: () => Promise<number>, replicaOf?: RedisAddress) => {
    const process = await startRedisProcess({
      binary: 'redis-server',
      port,
      args: (chosen) => [
        ...['--port', String(chosen), '--bind', HOST, '--dir', dir, '--logfile', join(dir, 'redis.log')],
        ...['--save', '', '--appendonly', 'yes'],
        // A new replica syncs at once, not after the default 5 s wait for more of them.
        ...['--repl-diskless-sync-delay', '0'],
        ...(replicaOf ? ['--replicaof', replicaOf.host, String(replicaOf.port)] : []),
      ],
      logFile: join(dir, 'redis.log'),
    });
    const node = { port: process.port, dir, process };
    dataNodes.push(node);
    return node;
  };

  try {
    const first = await startDataNode(newDir('master'), freePort);
    const firstMaster = { host: HOST, port: first.port };
    await Promise.all(Array.from({ length: replicas }, () => startDataNode(newDir('replica'), freePort, firstMaster)));
    // The sentinels learn the replicas from the master's INFO: only once they are connected to it.
    await waitUntil('every replica connected to the master', START_TIMEOUT_MS, () =>
      dataNodesProblem(dataNodes, firstMaster),
    );
    const quorum = Math.floor(sentinels / 2) + 1;
    const sentinelList = await Promise.all(
      Array.from({ length: sentinels }, async () => {
        const dir = newDir('sentinel');
        const sentinel = await startRedisProcess({
          binary: 'redis-sentinel',
          port: freePort,
          args: (port) => {
            // Sentinel rewrites its configuration file: it must be a file of its own.
            const config = join(dir, 'sentinel.conf');
            const monitor = [
              `sentinel monitor ${name} ${HOST} ${firstMaster.port} ${quorum}`,
              // 2 s, not less: on a loaded machine a second's silence is not a dead master.
              `sentinel down-after-milliseconds ${name} 2000`,
              `sentinel failover-timeout ${name} 5000`,
              `sentinel parallel-syncs ${name} 1`,
            ];
            writeFileSync(config, [`bind ${HOST}`, `dir ${dir}`, ...monitor, ''].join('\n'));
            return [config, '--port', String(port), '--logfile', join(dir, 'sentinel.log')];
          },
          logFile: join(dir, 'sentinel.log'),
        });
        sentinelProcesses.push(sentinel);
        return { host: HOST, port: sentinel.port };
      }),
    );

    const sentinelPorts = sentinelList.map((sentinel) => sentinel.port);
    const topology = { name, dataNodes, sentinelPorts };
    await waitUntilWhole(topology, START_TIMEOUT_MS);

    const master = async (): Promise<RedisAddress> => {
      const [host, port] = (await redisCommand(sentinelPorts[0], 'SENTINEL', 'get-master-addr-by-name', name)) as [
        string,
        string,
      ];
      return { host, port: Number(port) };
    };

    return {
      name,
      sentinels: sentinelList,
      sentinelsSetting: sentinelList.map((sentinel) => `${sentinel.host}:${sentinel.port}`).join(','),
      master,
      async failover(how = 'kill') {
        const from = await master();
        const old = dataNodes.find((node) => node.port === from.port);
        if (!old) throw new Error(`the sentinels name ${from.host}:${from.port} as master, no node of this setup`);
        if (how === 'shutdown') {
          // The connection ends without a reply when the server exits.
          await redisCommand(old.port, 'SHUTDOWN').catch(() => undefined);
          await waitUntil(`the master on ${old.port} exiting after SHUTDOWN`, FAILOVER_TIMEOUT_MS, async () =>
            old.process.running() ? 'still running' : null,
          );
        }
        await old.process.kill();
        const to = await waitForNewMaster(topology, from);
        // Back on its port and directory, as a replica: it resyncs from the new master.
        dataNodes.splice(dataNodes.indexOf(old), 1);
        await startDataNode(old.dir, async () => old.port, to);
        return { from, to: await waitUntilWhole(topology, FAILOVER_TIMEOUT_MS) };
      },
      async sentinelFailover() {
        const from = await master();
        const reply = await redisCommand(sentinelPorts[0], 'SENTINEL', 'FAILOVER', name);
        if (reply !== 'OK') throw new Error(`SENTINEL FAILOVER ${name} answered ${String(reply)}`);
        await waitForNewMaster(topology, from);
        return { from, to: await waitUntilWhole(topology, FAILOVER_TIMEOUT_MS) };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface Topology {
  name: string;
  /** Every data node, the master among them. */
  dataNodes: DataNode[];
  sentinelPorts: number[];
}

/** Until every sentinel names the same master other than `from`, and that one answers ROLE as master. */
async function waitForNewMaster(topology: Topology, from: RedisAddress): Promise<RedisAddress> {
  let found: RedisAddress | undefined;
  await waitUntil(
    `the sentinels naming a new master instead of ${from.host}:${from.port}`,
    FAILOVER_TIMEOUT_MS,
    async () => {
      const named = await Promise.all(
        topology.sentinelPorts.map(async (port) => {
          const [host, master] = (await redisCommand(port, 'SENTINEL', 'get-master-addr-by-name', topology.name)) as [
            string,
            string,
          ];
          return `${host}:${master}`;
        }),
      );
      const distinct = [...new Set(named)];
      if (distinct.length > 1) return `the sentinels disagree: ${named.join(', ')}`;
      const [host, port] = distinct[0].split(':');
      if (Number(port) === from.port) return `the sentinels still name ${distinct[0]}`;
      const role = (await redisCommand(Number(port), 'ROLE')) as [string];
      if (role[0] !== 'master') return `${distinct[0]} is named master but answers ROLE ${role[0]}`;
      found = { host, port: Number(port) };
      return null;
    },
  );
  return found as RedisAddress;
}

/**
 * Until the setup is whole: the master the sentinels name answers ROLE as master, every other data
 * node is a connected replica of it, and every sentinel names it, with no failover under way, every
 * replica known and healthy (so that it can be promoted) and every other sentinel known. Returns
 * that master: on a loaded machine the sentinels may fail over once more meanwhile, which is a
 * failover like any other.
 */
async function waitUntilWhole(topology: Topology, timeoutMs: number): Promise<RedisAddress> {
  let master: RedisAddress | undefined;
  await waitUntil('the setup whole again', timeoutMs, async () => {
    const [host, port] = (await redisCommand(
      topology.sentinelPorts[0],
      'SENTINEL',
      'get-master-addr-by-name',
      topology.name,
    )) as [string, string];
    const named = { host, port: Number(port) };
    const dataProblem = await dataNodesProblem(topology.dataNodes, named);
    if (dataProblem) return dataProblem;
    for (const sentinelPort of topology.sentinelPorts) {
      const problem = await sentinelProblem(sentinelPort, topology, named);
      if (problem) return problem;
    }
    master = named;
    return null;
  });
  return master as RedisAddress;
}

async function dataNodesProblem(dataNodes: DataNode[], master: RedisAddress): Promise<string | null> {
  for (const node of dataNodes) {
    const role = (await redisCommand(node.port, 'ROLE')) as unknown[];
    if (node.port === master.port) {
      if (role[0] !== 'master') return `${node.port} answers ROLE ${String(role[0])}, not master`;
      continue;
    }
    const [kind, , masterPort, state] = role as [string, string, number, string];
    if (kind !== 'slave' || masterPort !== master.port || state !== 'connected')
      return `${node.port} answers ROLE ${role.slice(0, 4).join(' ')}, not a connected replica of ${master.port}`;
  }
  return null;
}

async function sentinelProblem(port: number, topology: Topology, master: RedisAddress): Promise<string | null> {
  const { name } = topology;
  const [, named] = (await redisCommand(port, 'SENTINEL', 'get-master-addr-by-name', name)) as [string, string];
  if (Number(named) !== master.port) return `sentinel ${port} names master ${named}`;
  const masterFlags = fields((await redisCommand(port, 'SENTINEL', 'MASTER', name)) as string[]).flags;
  if (masterFlags !== 'master') return `sentinel ${port} flags the master ${masterFlags}`;
  const replicas = ((await redisCommand(port, 'SENTINEL', 'REPLICAS', name)) as string[][]).map(fields);
  if (replicas.filter((replica) => reachable(replica.flags, 'slave')).length !== topology.dataNodes.length - 1)
    return `sentinel ${port} sees replicas ${replicas.map((r) => `${r.port} ${r.flags}`).join(', ') || 'none'}`;
  const others = ((await redisCommand(port, 'SENTINEL', 'SENTINELS', name)) as string[][]).map(fields);
  if (others.filter((other) => reachable(other.flags, 'sentinel')).length !== topology.sentinelPorts.length - 1)
    return `sentinel ${port} sees sentinels ${others.map((o) => `${o.port} ${o.flags}`).join(', ') || 'none'}`;
  return null;
}

/**
 * Flags of a replica or sentinel as a sentinel sees it: of `kind`, connected and not down. Others
 * (master_down: that sentinel voted the old master down, kept 5 s after the failover) say nothing of
 * its health now.
 */
function reachable(flags: string, kind: 'slave' | 'sentinel'): boolean {
  const set = flags.split(',');
  return set.includes(kind) && !set.some((flag) => ['s_down', 'o_down', 'disconnected'].includes(flag));
}

/** A sentinel's [field, value, field, value, ...] reply as an object. */
function fields(reply: string[]): Record<string, string> {
  const object: Record<string, string> = {};
  for (let i = 0; i < reply.length; i += 2) object[reply[i]] = reply[i + 1];
  return object;
}
