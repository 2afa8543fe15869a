import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinaries } from './binaries.ts';
import { freePort } from './fault-redis-server.ts';
import { redisCommand, startRedisProcess, waitUntil, type RedisAddress, type RedisProcess } from './redis-process.ts';

/**
 * A real Redis Cluster of the test's own: `masters` shards of a master and `replicasPerMaster`
 * replicas each, redis-server processes in cluster mode on free local ports without persistence,
 * the slots spread and the replicas assigned by `redis-cli --cluster create`.
 */
export interface TestRedisCluster {
  /**
   * The masters, one per shard, in the order of their slots (index 0 owns slot 0). After
   * `failoverMasterOf` the promoted replica takes its shard's place in this same array.
   */
  nodes: RedisAddress[];
  /**
   * `127.0.0.1:p1,127.0.0.1:p2,...`, the form of REDIS_CLUSTER_NODES: every node, the masters
   * first, then the replicas, as an operator would list them (a client that starts while a master
   * is down still finds the cluster). Fixed at start: a killed master stays in it.
   */
  nodesSetting: string;
  /** The index in `nodes` of the master that owns the key's slot. */
  nodeOfKey(key: string): Promise<number>;
  /** Per master (index of `nodes`), the number of its keys that match the SCAN MATCH pattern. */
  keysPerNode(match: string): Promise<number[]>;
  /**
   * The master of the key's slot dies (SIGKILL) and a replica of it takes over, as the cluster
   * decides by itself (the replica sees the master failing after cluster-node-timeout, 2 s, the
   * other masters vote). Resolves once the replica is master, every live node answers
   * cluster_state:ok and they all see the same slot map. The dead master is not started again.
   * Needs `replicasPerMaster` of 1 or more.
   */
  failoverMasterOf(key: string): Promise<{ from: RedisAddress; to: RedisAddress }>;
  /** Kills every node, waits for the exits and removes their directories. Safe to call again. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
/** A node's cluster bus listens on its port + 10000. */
const BUS_OFFSET = 10_000;
const START_TIMEOUT_MS = 30_000;
/** The failure detection (2 s) and the election take 2 to 4 s; more on a loaded machine. */
const FAILOVER_TIMEOUT_MS = 30_000;
const NODE_TIMEOUT_MS = 2_000;

type SlotRange = [start: number, end: number, master: SlotNode, ...replicas: SlotNode[]];
type SlotNode = [host: string, port: number, id: string, ...rest: unknown[]];

interface ClusterNode {
  port: number;
  process: RedisProcess;
}

export async function startRedisCluster({
  masters = 3,
  replicasPerMaster = 0,
}: { masters?: number; replicasPerMaster?: number } = {}): Promise<TestRedisCluster> {
  if (masters < 3)
    throw new Error(`startRedisCluster: redis-cli --cluster create needs 3 masters or more, not ${masters}`);
  if (!Number.isInteger(replicasPerMaster) || replicasPerMaster < 0)
    throw new Error(`startRedisCluster: replicasPerMaster must be 0 or more, not ${replicasPerMaster}`);
  const dirs: string[] = [];
  const all: ClusterNode[] = [];
  const portsTaken = new Set<number>();
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await Promise.all(all.map((node) => node.process.kill()));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    })());

  try {
    await Promise.all(
      Array.from({ length: masters * (1 + replicasPerMaster) }, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'chaintap-redis-cluster-'));
        dirs.push(dir);
        const server = await startRedisProcess({
          binary: 'redis-server',
          port: () => clusterPort(portsTaken),
          args: (port) => [
            ...['--port', String(port), '--bind', HOST, '--dir', dir, '--logfile', join(dir, 'redis.log')],
            ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf')],
            ...['--cluster-node-timeout', String(NODE_TIMEOUT_MS), '--save', '', '--appendonly', 'no'],
            // A replica syncs at once, not after the default 5 s wait for more of them; and its
            // master pings it every second, not 10: until the first ping moves the replication
            // offset off 0, CLUSTER SLOTS does not list the replica.
            ...['--repl-diskless-sync-delay', '0', '--repl-ping-replica-period', '1'],
          ],
          logFile: join(dir, 'redis.log'),
        });
        all.push({ port: server.port, process: server });
      }),
    );
    // redis-cli picks which nodes become masters: the roles are read back from the cluster below.
    await createCluster(all, replicasPerMaster);
    const state: ClusterState = { all, live: [...all], masters, replicasPerMaster };
    const shards = await waitUntilWhole(
      state,
      'every node cluster_state:ok, one slot map, replicas in sync',
      START_TIMEOUT_MS,
    );
    const nodes: RedisAddress[] = shards.map((shard) => ({ host: HOST, port: shard.master }));
    const replicaPorts = shards.flatMap((shard) => shard.replicas);
    const live = () => state.live[0].port;

    const nodeOfKey = async (key: string) => {
      const slot = (await redisCommand(live(), 'CLUSTER', 'KEYSLOT', key)) as number;
      const ranges = (await redisCommand(live(), 'CLUSTER', 'SLOTS')) as SlotRange[];
      const range = ranges.find(([start, end]) => start <= slot && slot <= end);
      const index = nodes.findIndex((node) => node.port === range?.[2][1]);
      if (index < 0) throw new Error(`no master of this cluster owns slot ${slot} (of key ${key})`);
      return index;
    };

    return {
      nodes,
      nodesSetting: [...nodes.map((node) => node.port), ...replicaPorts].map((port) => `${HOST}:${port}`).join(','),
      nodeOfKey,
      async keysPerNode(match) {
        return Promise.all(nodes.map((node) => countKeys(node.port, match)));
      },
      async failoverMasterOf(key) {
        const index = await nodeOfKey(key);
        const from = nodes[index];
        const shard = (await readShards(live())).find((found) => found.master === from.port);
        if (!shard?.replicas.length)
          throw new Error(`failoverMasterOf: the master ${from.port} of ${key} has no replica to take over`);
        const dying = state.live.find((node) => node.port === from.port);
        if (!dying) throw new Error(`failoverMasterOf: the master ${from.port} of ${key} is no node of this cluster`);
        await dying.process.kill();
        state.live = state.live.filter((node) => node !== dying);
        const after = await waitUntilWhole(
          state,
          `a replica of ${from.port} (${shard.replicas.join(', ')}) promoted, every live node cluster_state:ok and one slot map`,
          FAILOVER_TIMEOUT_MS,
        );
        const promoted = after.find((found) => shard.replicas.includes(found.master));
        if (!promoted) throw new Error(`failoverMasterOf: no replica of ${from.port} became master`);
        nodes[index] = { host: HOST, port: promoted.master };
        return { from, to: nodes[index] };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A free port whose bus port (+10000) is free too, neither of them taken by another node. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = await freePort();
    const bus = port + BUS_OFFSET;
    if (bus > 65_535 || taken.has(port) || taken.has(bus) || !(await canListen(bus))) continue;
    taken.add(port);
    taken.add(bus);
    return port;
  }
  throw new Error('no free port with a free port + 10000 found in 50 tries');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

function createCluster(nodes: ClusterNode[], replicasPerMaster: number): Promise<void> {
  requireBinaries('redis-cli');
  const args = ['--cluster', 'create', ...nodes.map((node) => `${HOST}:${node.port}`)];
  args.push('--cluster-replicas', String(replicasPerMaster), '--cluster-yes');
  return new Promise((resolve, reject) => {
    const cli = spawn('redis-cli', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    cli.stdout.on('data', (chunk) => (output += chunk));
    cli.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => cli.kill('SIGKILL'), START_TIMEOUT_MS);
    cli.once('error', reject);
    cli.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`redis-cli ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${output}`));
    });
  });
}

interface ClusterState {
  /** Every node ever started: the dead ones stay known to the others (flagged fail). */
  all: ClusterNode[];
  live: ClusterNode[];
  masters: number;
  replicasPerMaster: number;
}

/** A master and its replicas, as CLUSTER SLOTS lists them. */
interface Shard {
  master: number;
  replicas: number[];
  /** Its slot ranges, `0-5460 ...`. */
  slots: string;
}

/**
 * Until the cluster is whole, then its shards in slot order: see `clusterProblem`. `what` names
 * the awaited state in the error when it does not come.
 */
async function waitUntilWhole(state: ClusterState, what: string, timeoutMs: number): Promise<Shard[]> {
  let shards: Shard[] = [];
  await waitUntil(what, timeoutMs, async () => {
    const found = await clusterProblem(state);
    if (typeof found === 'string') return found;
    shards = found;
    return null;
  });
  return shards;
}

/**
 * What is not as it should be yet, or the shards when all is: every live node answers
 * cluster_state:ok, knows every node started, and sees the same masters and replicas of the same
 * slots; there are `masters` masters, all of them live; every live replica is connected to its
 * master and synced. A shard whose master died has one replica fewer once one of them took over.
 */
async function clusterProblem(state: ClusterState): Promise<string | Shard[]> {
  let first: { port: number; map: string; shards: Shard[] } | undefined;
  for (const node of state.live) {
    const info = String(await redisCommand(node.port, 'CLUSTER', 'INFO'));
    if (!/^cluster_state:ok\r?$/m.test(info)) return `${node.port}: not cluster_state:ok`;
    const known = /^cluster_known_nodes:(\d+)/m.exec(info)?.[1];
    if (Number(known) !== state.all.length) return `${node.port}: knows ${known} nodes, not ${state.all.length}`;
    const shards = await readShards(node.port);
    const map = shards.map((shard) => `${shard.slots}@${shard.master}+${shard.replicas.join('+')}`).join(' ');
    first ??= { port: node.port, map, shards };
    if (map !== first.map) return `${node.port} sees the slots as ${map}, ${first.port} as ${first.map}`;
  }
  if (!first) return 'no node of the cluster is running';
  const { shards } = first;
  if (shards.length !== state.masters) return `${shards.length} masters own slots, not ${state.masters}: ${first.map}`;
  const livePorts = new Set(state.live.map((node) => node.port));
  for (const shard of shards) {
    if (!livePorts.has(shard.master)) return `${shard.master}, dead, still owns slots ${shard.slots}`;
    // Before any failover every shard is complete; after one, the shard that moved has a replica
    // fewer, and the check below that every live node has its place stands for this one.
    if (state.live.length === state.all.length && shard.replicas.length !== state.replicasPerMaster)
      return `${shard.master} has ${shard.replicas.length} replicas, not ${state.replicasPerMaster}`;
    for (const replica of shard.replicas) {
      if (!livePorts.has(replica)) return `${replica}, dead, still listed as a replica of ${shard.master}`;
      const [role, , masterPort, link] = (await redisCommand(replica, 'ROLE')) as [string, string, number, string];
      if (role !== 'slave' || masterPort !== shard.master || link !== 'connected')
        return `${replica} answers ROLE ${role} ${masterPort} ${link}, not a synced replica of ${shard.master}`;
    }
  }
  const listed = shards.flatMap((shard) => [shard.master, ...shard.replicas]);
  const unlisted = [...livePorts].filter((port) => !listed.includes(port));
  if (unlisted.length > 0) return `${unlisted.join(', ')} neither master nor replica of a shard yet`;
  return shards;
}

/** The shards as one node sees them (CLUSTER SLOTS), in slot order. */
async function readShards(port: number): Promise<Shard[]> {
  const ranges = (await redisCommand(port, 'CLUSTER', 'SLOTS')) as SlotRange[];
  const byMaster = new Map<number, Shard>();
  for (const [start, end, master, ...replicas] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const shard = byMaster.get(master[1]) ?? { master: master[1], replicas: [], slots: '' };
    shard.slots = `${shard.slots} ${start}-${end}`.trim();
    shard.replicas = [...new Set([...shard.replicas, ...replicas.map((replica) => replica[1])])].sort((a, b) => a - b);
    byMaster.set(master[1], shard);
  }
  return [...byMaster.values()];
}

async function countKeys(port: number, match: string): Promise<number> {
  let cursor = '0';
  let count = 0;
  do {
    const [next, keys] = (await redisCommand(port, 'SCAN', cursor, 'MATCH', match, 'COUNT', 1000)) as [
      string,
      string[],
    ];
    cursor = next;
    count += keys.length;
  } while (cursor !== '0');
  return count;
}
