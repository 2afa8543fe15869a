import { ConfigError } from '../errors.ts';
import type { Options } from './options.ts';

export interface RedisNode {
  host: string;
  port: number;
}

interface RedisAuth {
  username?: string;
  password?: string;
  tls: boolean;
}

/**
 * The Redis chaintap works with, as the settings name it: one node (REDIS_URL), a Redis Cluster
 * (REDIS_CLUSTER_NODES: some of its nodes, the client learns the rest) or a master found through
 * Sentinel (REDIS_SENTINELS, and REDIS_SENTINEL_NAME: the master's name as the sentinels know it).
 */
export type RedisTopology = RedisAuth &
  (
    | { kind: 'single'; url: string }
    | { kind: 'cluster'; nodes: RedisNode[] }
    | { kind: 'sentinel'; sentinels: RedisNode[]; name: string; sentinelPassword?: string }
  );

/** Every REDIS_ setting. */
type TopologySettings = Pick<Options, Extract<keyof Options, `REDIS_${string}`>>;

/**
 * The topology the settings name; ConfigError when they name more than one or a list is malformed.
 * `redisUrlSet`: REDIS_URL was set, not defaulted (then beside a cluster or sentinels it is one too many).
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
    const parsed = parseNodeList('REDIS_CLUSTER_NODES', options.REDIS_CLUSTER_NODES, 6379);
    return { kind: 'cluster', nodes: parsed.nodes, ...auth(options, parsed) };
  }
  if (options.REDIS_SENTINELS) {
    if (!options.REDIS_SENTINEL_NAME)
      fail('REDIS_SENTINEL_NAME: required with REDIS_SENTINELS (the master name of the sentinels, e.g. mymaster)');
    const parsed = parseNodeList('REDIS_SENTINELS', options.REDIS_SENTINELS, 26379);
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
    ...auth(options, { ...urlCredentials(url), tls: url.protocol === 'rediss:' }),
  };
}

/** Which setting names the topology, for messages: "cannot reach Redis ... (REDIS_SENTINELS)". */
export function topologySetting(topology: RedisTopology): string {
  return { single: 'REDIS_URL', cluster: 'REDIS_CLUSTER_NODES', sentinel: 'REDIS_SENTINELS' }[topology.kind];
}

/** The topology without credentials, for logs and errors. */
export function describeTopology(topology: RedisTopology): string {
  const list = (nodes: RedisNode[]) =>
    nodes.map(({ host, port }) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`)).join(',');
  switch (topology.kind) {
    case 'single':
      return URL.parse(topology.url)?.host ?? 'REDIS_URL';
    case 'cluster':
      return `the Redis Cluster of ${list(topology.nodes)}`;
    case 'sentinel':
      return `the master "${topology.name}" of the sentinels ${list(topology.sentinels)}`;
  }
}

type Credentials = Omit<RedisAuth, 'tls'>;

function urlCredentials(url: URL): Credentials {
  return {
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
  };
}

/**
 * `host:port`, `[::1]:port`, `host` (the default port) or a `redis://` / `rediss://` URL per entry,
 * comma-separated. Credentials and TLS in URLs must be the same in every entry that has them.
 */
function parseNodeList(setting: string, value: string, defaultPort: number): RedisAuth & { nodes: RedisNode[] } {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) fail(`${setting}: name at least one host:port`);
  const nodes: RedisNode[] = [];
  const credentials = new Set<string>();
  const schemes = new Set<string>();
  let fromUrls: Credentials = {};
  for (const entry of entries) {
    const isUrl = /^[a-z]+:\/\//i.test(entry);
    const url = URL.parse(isUrl ? entry : `redis://${entry}`);
    if (url && isUrl && url.protocol !== 'redis:' && url.protocol !== 'rediss:')
      fail(`${setting}: "${safeEntry(entry)}" must be host:port or a redis:// or rediss:// URL`);
    if (!url?.hostname || (url.pathname && url.pathname !== '/') || url.search)
      fail(`${setting}: "${safeEntry(entry)}" is not host:port`);
    nodes.push({ host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port ? Number(url.port) : defaultPort });
    if (isUrl) {
      schemes.add(url.protocol);
      if (url.username || url.password) {
        credentials.add(`${url.username}:${url.password}`);
        fromUrls = urlCredentials(url);
      }
    }
  }
  if (credentials.size > 1) fail(`${setting}: the entries carry different credentials; give them once`);
  if (schemes.size > 1) fail(`${setting}: mixes redis:// and rediss://; TLS is for every node or none`);
  return { nodes, ...fromUrls, tls: schemes.has('rediss:') };
}

/** Credentials from the URLs, else from REDIS_USERNAME / REDIS_PASSWORD; both set must agree. */
function auth(options: TopologySettings, fromUrls: RedisAuth): RedisAuth {
  if (fromUrls.password !== undefined && options.REDIS_PASSWORD && fromUrls.password !== options.REDIS_PASSWORD)
    fail('REDIS_PASSWORD: differs from the password in the Redis URL; give it once');
  if (fromUrls.username !== undefined && options.REDIS_USERNAME && fromUrls.username !== options.REDIS_USERNAME)
    fail('REDIS_USERNAME: differs from the user name in the Redis URL; give it once');
  return {
    username: fromUrls.username ?? options.REDIS_USERNAME,
    password: fromUrls.password ?? options.REDIS_PASSWORD,
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
