import { ConfigError } from '../errors.ts';
import type { Options } from './options.ts';

/**
 * The Redis chaintap works with, in one of three forms, as the settings name it: one node
 * (REDIS_URL), a Redis Cluster (REDIS_CLUSTER_NODES) or a master found through Sentinel
 * (REDIS_SENTINELS and REDIS_SENTINEL_NAME).
 */
export type RedisTopology = SingleRedis | ClusterRedis | SentinelRedis;

export interface RedisNode {
  host: string;
  port: number;
}

interface RedisAuth {
  username?: string;
  password?: string;
  tls: boolean;
}

export interface SingleRedis extends RedisAuth {
  kind: 'single';
  url: string;
}

export interface ClusterRedis extends RedisAuth {
  kind: 'cluster';
  /** Some or all of the cluster's nodes: the client learns the rest from them. */
  nodes: RedisNode[];
}

export interface SentinelRedis extends RedisAuth {
  kind: 'sentinel';
  sentinels: RedisNode[];
  /** The master's name as the sentinels know it. */
  name: string;
  sentinelPassword?: string;
}

const DEFAULT_PORT = { cluster: 6379, sentinel: 26379 } as const;

type TopologySettings = Pick<
  Options,
  | 'REDIS_URL'
  | 'REDIS_CLUSTER_NODES'
  | 'REDIS_SENTINELS'
  | 'REDIS_SENTINEL_NAME'
  | 'REDIS_USERNAME'
  | 'REDIS_PASSWORD'
  | 'REDIS_SENTINEL_PASSWORD'
  | 'REDIS_TLS'
>;

/**
 * The topology the settings name. Throws ConfigError when they name more than one, or a list is
 * malformed. `redisUrlSet` says whether REDIS_URL was set rather than defaulted: set together with
 * a cluster or sentinels, which Redis is meant is not clear.
 */
export function redisTopology(options: TopologySettings, check: { redisUrlSet?: boolean } = {}): RedisTopology {
  const named = [
    check.redisUrlSet && 'REDIS_URL',
    options.REDIS_CLUSTER_NODES && 'REDIS_CLUSTER_NODES',
    options.REDIS_SENTINELS && 'REDIS_SENTINELS',
  ].filter(Boolean);
  if (named.length > 1) fail(`${named.join(', ')}: set only one of them (one node, a cluster, or sentinels)`);
  if (options.REDIS_SENTINEL_NAME && !options.REDIS_SENTINELS)
    fail('REDIS_SENTINEL_NAME: set REDIS_SENTINELS too (the sentinels that know this master)');

  if (options.REDIS_CLUSTER_NODES) {
    const parsed = parseNodeList('REDIS_CLUSTER_NODES', options.REDIS_CLUSTER_NODES, DEFAULT_PORT.cluster);
    return { kind: 'cluster', nodes: parsed.nodes, ...auth(options, parsed) };
  }
  if (options.REDIS_SENTINELS) {
    if (!options.REDIS_SENTINEL_NAME)
      fail('REDIS_SENTINEL_NAME: required with REDIS_SENTINELS (the master name of the sentinels, e.g. mymaster)');
    const parsed = parseNodeList('REDIS_SENTINELS', options.REDIS_SENTINELS, DEFAULT_PORT.sentinel);
    if (parsed.username !== undefined || parsed.password !== undefined)
      fail('REDIS_SENTINELS: no credentials in the list; use REDIS_PASSWORD (the master) and REDIS_SENTINEL_PASSWORD');
    return {
      kind: 'sentinel',
      sentinels: parsed.nodes,
      name: options.REDIS_SENTINEL_NAME,
      ...auth(options, parsed),
      ...(options.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: options.REDIS_SENTINEL_PASSWORD } : {}),
    };
  }
  const url = new URL(options.REDIS_URL);
  return {
    kind: 'single',
    url: options.REDIS_URL,
    ...auth(options, {
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      tls: url.protocol === 'rediss:',
    }),
  };
}

/** Which setting names the topology, for messages: "cannot reach Redis ... (REDIS_SENTINELS)". */
export function topologySetting(topology: RedisTopology): string {
  return { single: 'REDIS_URL', cluster: 'REDIS_CLUSTER_NODES', sentinel: 'REDIS_SENTINELS' }[topology.kind];
}

/** The topology without credentials, for logs and errors. */
export function describeTopology(topology: RedisTopology): string {
  const list = (nodes: RedisNode[]) => nodes.map(formatNode).join(',');
  switch (topology.kind) {
    case 'single': {
      try {
        return new URL(topology.url).host;
      } catch {
        return 'REDIS_URL';
      }
    }
    case 'cluster':
      return `the Redis Cluster of ${list(topology.nodes)}`;
    case 'sentinel':
      return `the master "${topology.name}" of the sentinels ${list(topology.sentinels)}`;
  }
}

function formatNode(node: RedisNode): string {
  return node.host.includes(':') ? `[${node.host}]:${node.port}` : `${node.host}:${node.port}`;
}

interface ParsedList {
  nodes: RedisNode[];
  username?: string;
  password?: string;
  tls: boolean;
}

/**
 * `host:port`, `[::1]:port`, `host` (the default port) or a `redis://` / `rediss://` URL per entry,
 * comma-separated. Credentials and TLS in URLs must be the same in every entry that has them.
 */
function parseNodeList(setting: string, value: string, defaultPort: number): ParsedList {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) fail(`${setting}: name at least one host:port`);
  const nodes: RedisNode[] = [];
  const credentials = new Set<string>();
  const schemes = new Set<string>();
  let username: string | undefined;
  let password: string | undefined;
  for (const entry of entries) {
    const isUrl = /^[a-z]+:\/\//i.test(entry);
    let url: URL;
    try {
      url = new URL(isUrl ? entry : `redis://${entry}`);
    } catch {
      return fail(`${setting}: "${safeEntry(entry)}" is not host:port`);
    }
    if (isUrl && url.protocol !== 'redis:' && url.protocol !== 'rediss:')
      fail(`${setting}: "${safeEntry(entry)}" must be host:port or a redis:// or rediss:// URL`);
    if (!url.hostname || (url.pathname && url.pathname !== '/') || url.search)
      fail(`${setting}: "${safeEntry(entry)}" is not host:port`);
    const port = url.port ? Number(url.port) : defaultPort;
    nodes.push({ host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port });
    if (isUrl) {
      schemes.add(url.protocol);
      if (url.username || url.password) {
        credentials.add(`${url.username}:${url.password}`);
        username = url.username ? decodeURIComponent(url.username) : undefined;
        password = url.password ? decodeURIComponent(url.password) : undefined;
      }
    }
  }
  if (credentials.size > 1) fail(`${setting}: the entries carry different credentials; give them once`);
  if (schemes.size > 1) fail(`${setting}: mixes redis:// and rediss://; TLS is for every node or none`);
  return { nodes, username, password, tls: schemes.has('rediss:') };
}

/** Credentials from the URLs, else from REDIS_USERNAME / REDIS_PASSWORD; both set must agree. */
function auth(options: TopologySettings, fromUrls: Omit<ParsedList, 'nodes'>): RedisAuth {
  if (fromUrls.password !== undefined && options.REDIS_PASSWORD && fromUrls.password !== options.REDIS_PASSWORD)
    fail('REDIS_PASSWORD: differs from the password in the Redis URL; give it once');
  if (fromUrls.username !== undefined && options.REDIS_USERNAME && fromUrls.username !== options.REDIS_USERNAME)
    fail('REDIS_USERNAME: differs from the user name in the Redis URL; give it once');
  const username = fromUrls.username ?? options.REDIS_USERNAME;
  const password = fromUrls.password ?? options.REDIS_PASSWORD;
  return {
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    tls: fromUrls.tls || options.REDIS_TLS,
  };
}

/** An entry as a message may show it: without what may be a password. */
function safeEntry(entry: string): string {
  return entry.replace(/\/\/[^@/]*@/, '//***@');
}

function fail(problem: string): never {
  throw new ConfigError(`Invalid configuration:\n  ${problem}`);
}
