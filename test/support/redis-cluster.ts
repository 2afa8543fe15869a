import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './fault-redis-server.js';
import { redisCommand, startRedisProcess, waitUntil, type RedisAddress, type RedisProcess } from './redis-process.js';

/**
 * A real Redis Cluster of the test's own: `masters` redis-server processes in cluster mode on free
 * local ports, without replicas and without persistence, the slots spread by `redis-cli --cluster
 * create`.
 */
export interface TestRedisCluster {
  /** The masters, in the order their index names them. */
  nodes: RedisAddress[];
  /** `127.0.0.1:p1,127.0.0.1:p2,...`: the form of REDIS_CLUSTER_NODES. */
  nodesSetting: string;
  /** The index in `nodes` of the master that owns the key's slot. */
  nodeOfKey(key: string): Promise<number>;
  /** Per master (index of `nodes`), the number of its keys that match the SCAN MATCH pattern. */
  keysPerNode(match: string): Promise<number[]>;
  /** Kills every node, waits for the exits and removes their directories. Safe to call again. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
/** A node's cluster bus listens on its port + 10000. */
const BUS_OFFSET = 10_000;
const START_TIMEOUT_MS = 30_000;

type SlotRange = [start: number, end: number, master: [host: string, port: number, id: string], ...replicas: unknown[]];

export async function startRedisCluster({ masters = 3 }: { masters?: number } = {}): Promise<TestRedisCluster> {
  if (masters < 3)
    throw new Error(`startRedisCluster: redis-cli --cluster create needs 3 masters or more, not ${masters}`);
  const dirs: string[] = [];
  const processes: RedisProcess[] = [];
  const portsTaken = new Set<number>();
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await Promise.all(processes.map((node) => node.kill()));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    })());

  try {
    const started = await Promise.all(
      Array.from({ length: masters }, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'chaintap-redis-cluster-'));
        dirs.push(dir);
        const node = await startRedisProcess({
          binary: 'redis-server',
          port: () => clusterPort(portsTaken),
          args: (port) => [
            ...['--port', String(port), '--bind', HOST, '--dir', dir, '--logfile', join(dir, 'redis.log')],
            ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf')],
            ...['--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no'],
          ],
          logFile: join(dir, 'redis.log'),
        });
        processes.push(node);
        return node;
      }),
    );
    const nodes = started.map((node) => ({ host: HOST, port: node.port }));
    await createCluster(nodes);
    await waitUntil('every cluster node reporting cluster_state:ok and the same slot map', START_TIMEOUT_MS, () =>
      clusterProblem(nodes),
    );

    return {
      nodes,
      nodesSetting: nodes.map((node) => `${node.host}:${node.port}`).join(','),
      async nodeOfKey(key) {
        const slot = (await redisCommand(nodes[0].port, 'CLUSTER', 'KEYSLOT', key)) as number;
        const ranges = (await redisCommand(nodes[0].port, 'CLUSTER', 'SLOTS')) as SlotRange[];
        const range = ranges.find(([start, end]) => start <= slot && slot <= end);
        const index = nodes.findIndex((node) => node.port === range?.[2][1]);
        if (index < 0) throw new Error(`no master of this cluster owns slot ${slot} (of key ${key})`);
        return index;
      },
      async keysPerNode(match) {
        return Promise.all(nodes.map((node) => countKeys(node.port, match)));
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

function createCluster(nodes: RedisAddress[]): Promise<void> {
  const args = ['--cluster', 'create', ...nodes.map((node) => `${node.host}:${node.port}`)];
  args.push('--cluster-replicas', '0', '--cluster-yes');
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

/** What is not as it should be yet: a node not ok, or not agreeing with the first on the slots. */
async function clusterProblem(nodes: RedisAddress[]): Promise<string | null> {
  let firstMap: string | undefined;
  for (const node of nodes) {
    const info = String(await redisCommand(node.port, 'CLUSTER', 'INFO'));
    if (!/^cluster_state:ok\r?$/m.test(info)) return `${node.port}: not cluster_state:ok`;
    const known = /^cluster_known_nodes:(\d+)/m.exec(info)?.[1];
    if (Number(known) !== nodes.length) return `${node.port}: knows ${known} nodes, not ${nodes.length}`;
    const map = slotMap((await redisCommand(node.port, 'CLUSTER', 'SLOTS')) as SlotRange[]);
    firstMap ??= map;
    if (map !== firstMap) return `${node.port} sees the slots as ${map}, ${nodes[0].port} as ${firstMap}`;
  }
  const owners = new Set(firstMap?.split(' ').map((range) => range.split('@')[1]));
  if (owners.size !== nodes.length) return `only ${owners.size} of ${nodes.length} masters own slots: ${firstMap}`;
  return null;
}

function slotMap(ranges: SlotRange[]): string {
  return ranges
    .map(([start, end, master]) => ({ start, text: `${start}-${end}@${master[1]}` }))
    .sort((a, b) => a.start - b.start)
    .map((range) => range.text)
    .join(' ');
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
