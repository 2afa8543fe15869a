import type { Redis } from 'ioredis';
import { keysPattern } from '../../src/queue/redis-keys.ts';
import { processCpu } from './process-cpu.ts';

/** `used_memory` of INFO memory: what Redis' allocator holds for data and buffers, every client's. */
export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1]);
}

/**
 * What a chaintap key holds: a BullMQ job (its hash, with its lock and logs), a queue's events
 * stream, a queue's other keys (its wait list, completed set, meta, ...), a tick tracker's set, the
 * pending-targets hash of a dataset, or something else (the pacer, the scheduler's keys).
 */
export type KeyKind = 'jobs' | 'events' | 'queues' | 'tracker' | 'pendingTargets' | 'other';

export interface PrefixMemory {
  /** MEMORY USAGE (every element sampled) summed over the keys. */
  bytes: number;
  keys: number;
  /** The same bytes by kind of key. */
  byKind: Record<KeyKind, number>;
}

/** A key's kind, from its layout (src/queue/redis-keys.ts: `{<prefix>:<group>}...`). */
export function keyKind(prefix: string, key: string): KeyKind {
  const close = key.indexOf('}');
  const group = key.slice(prefix.length + 2, close);
  if (group.startsWith('tick:')) return 'tracker';
  if (group.startsWith('pending-targets:')) return 'pendingTargets';
  // A queue's keys are `{<prefix>:<queue>}:<queue>:<name>`; a job's name is its id, `<queue>-...`.
  const queuePart = `:${group}:`;
  if (!key.startsWith(queuePart, close + 1)) return 'other';
  const name = key.slice(close + 1 + queuePart.length);
  if (name === 'events') return 'events';
  return name.startsWith(`${group}-`) ? 'jobs' : 'queues';
}

/**
 * The bytes of every key under a chaintap prefix: unlike used_memory, other users of the same Redis
 * cannot disturb it. About a second per 50,000 keys (one pipeline per SCAN batch).
 */
export async function prefixMemory(redis: Redis, prefix: string): Promise<PrefixMemory> {
  const sum: PrefixMemory = {
    bytes: 0,
    keys: 0,
    byKind: { jobs: 0, events: 0, queues: 0, tracker: 0, pendingTargets: 0, other: 0 },
  };
  for await (const batch of redis.scanStream({ match: keysPattern(prefix), count: 1000 })) {
    const keys = batch as string[];
    if (keys.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    const answers = (await pipeline.exec()) ?? [];
    for (const [index, [error, bytes]] of answers.entries()) {
      if (error) throw error;
      // A key that expired or was removed since the SCAN answers nil.
      if (bytes === null) continue;
      sum.bytes += Number(bytes);
      sum.keys += 1;
      sum.byKind[keyKind(prefix, keys[index]!)] += Number(bytes);
    }
  }
  return sum;
}

/**
 * The redis-server's pid (INFO server `process_id`), when it runs where this process sees it;
 * null otherwise (another machine, or a pid namespace where that pid is some other process).
 */
export async function redisServerPid(redis: Redis): Promise<number | null> {
  const info = await redis.info('server');
  const pid = Number(/^process_id:(\d+)/m.exec(info)?.[1]);
  return pid && processCpu(pid)?.name.startsWith('redis') ? pid : null;
}
