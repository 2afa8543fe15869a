import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { redisTopology, type RedisTopology } from '../config/redis-topology.ts';
import type { Logger } from './logger.ts';

/** A connection to the Redis of any topology: ioredis' Cluster speaks the same commands as Redis. */
export type RedisClient = Redis | Cluster;

/**
 * Redis connections as BullMQ requires them, to one node (a URL), a cluster or the sentinels' master.
 * Workers (and anything that blocks) get maxRetriesPerRequest: null so that a Redis restart or a
 * failover pauses them instead of failing jobs; producers and CLI commands fail fast for a person to see.
 */
export function createRedisConnection(
  target: string | RedisTopology,
  role: 'worker' | 'producer',
  extra: RedisOptions = {},
): RedisClient {
  const topology = typeof target === 'string' ? redisTopology({ REDIS_URL: target, REDIS_TLS: false }) : target;
  // Where reconnectOnError says that Redis is full: the connection made below, at most every FULL_WARNING_MS.
  const fullWarning = { connection: undefined as RedisClient | undefined, saidAt: Number.NEGATIVE_INFINITY };
  const common: RedisOptions = {
    maxRetriesPerRequest: role === 'worker' ? null : 3,
    enableOfflineQueue: role === 'worker',
    connectTimeout: 10_000,
    retryStrategy: (times) => Math.min(200 * times, 5_000),
    reconnectOnError: (error) => {
      // A write that reaches a replica (a failed-over master): reconnect to the new master, send again.
      if (error.message.startsWith('READONLY')) return 2;
      // Redis full (maxmemory, noeviction) is, for a worker, an outage like Redis down: sent again
      // after each reconnect until there is room, rather than failing a burst of jobs, each lost for
      // its tick. The connection's 'error' listeners (the logs) are told.
      if (role !== 'worker' || !error.message.startsWith('OOM')) return false;
      const { connection, saidAt } = fullWarning;
      if (Date.now() - saidAt >= FULL_WARNING_MS && connection && connection.listenerCount('error') > 0) {
        fullWarning.saidAt = Date.now();
        connection.emit('error', new RedisFullError(error.message));
      }
      return 2;
    },
    lazyConnect: false,
    ...(topology.username ? { username: topology.username } : {}),
    ...(topology.password ? { password: topology.password } : {}),
    ...(topology.tls ? { tls: {} } : {}),
    ...extra,
  };
  fullWarning.connection = connect(topology, role, common);
  return fullWarning.connection;
}

/** How often a connection says that Redis is full while its commands wait for room. */
const FULL_WARNING_MS = 30_000;

/** Redis refuses writes for want of memory (maxmemory reached under noeviction): the commands wait. */
class RedisFullError extends Error {
  constructor(reply: string) {
    super(
      `Redis is full: it refuses writes (${reply}); workers wait until it has room: raise maxmemory, or give Redis more memory (docs/scaling.md)`,
    );
    this.name = 'RedisFullError';
  }
}

function connect(topology: RedisTopology, role: 'worker' | 'producer', common: RedisOptions): RedisClient {
  switch (topology.kind) {
    case 'single':
      return new Redis(topology.url, common);
    case 'sentinel':
      return new Redis({
        ...common,
        sentinels: topology.sentinels,
        name: topology.name,
        role: 'master',
        ...(topology.sentinelPassword ? { sentinelPassword: topology.sentinelPassword } : {}),
        ...(topology.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
        // No failoverDetector: on +switch-master during a reconnect it ends the client for good
        // (ioredis 6). A dead master closes the connection anyway; a demoted one answers READONLY.
        sentinelRetryStrategy: (times) => Math.min(200 * times, 5_000),
      });
    case 'cluster': {
      const { retryStrategy, enableOfflineQueue, ...nodeOptions } = common;
      return new Cluster(topology.nodes, {
        redisOptions: nodeOptions,
        enableOfflineQueue,
        clusterRetryStrategy: retryStrategy,
        enableReadyCheck: true,
        // A shard's failover (closed connection, MOVED to the dead master, CLUSTERDOWN) outlasts
        // ioredis' 16 redirections of 100 ms: workers wait it out, producers fail fast. A MOVED waits
        // 50 ms so that two nodes that disagree for a moment cannot make an unbounded retry spin.
        ...(role === 'worker' ? { maxRedirections: Number.POSITIVE_INFINITY, retryDelayOnMoved: 50 } : {}),
      });
    }
  }
}

/** BullMQ loses jobs when Redis evicts keys: warn loudly when maxmemory-policy is not noeviction. */
export async function checkEvictionPolicy(redis: RedisClient, logger: Logger): Promise<string | undefined> {
  try {
    let policy: string | undefined;
    // CONFIG is per server: every master of a cluster.
    for (const node of redis instanceof Cluster ? redis.nodes('master') : [redis]) {
      const reply = (await node.config('GET', 'maxmemory-policy')) as string[];
      policy = reply[1];
      if (policy && policy !== 'noeviction') {
        const where = redis instanceof Cluster ? { node: `${node.options.host}:${node.options.port}` } : {};
        logger.warn(
          { policy, ...where },
          `Redis maxmemory-policy is "${policy}": BullMQ needs "noeviction" or jobs can be lost (redis-cli config set maxmemory-policy noeviction)`,
        );
        return policy;
      }
    }
    return policy;
  } catch (error) {
    // Managed Redis services often forbid CONFIG; the check is advisory.
    logger.debug({ err: error }, 'could not read Redis maxmemory-policy');
    return undefined;
  }
}
