import type { Queue } from 'bullmq';
import type { RedisClient } from '../runtime/redis-connection.ts';
import { pipelineResults } from './pipeline-results.ts';

/** Job keys per script call: a call stays short (a few ms), and every call goes in one round trip. */
const SLICE = 5000;

// KEYS: job hashes. Returns the 1-based positions of those that do not exist.
const MISSING_SCRIPT = `
local missing = {}
for i, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 0 then missing[#missing + 1] = i end
end
return missing
`;

/**
 * The ids among `ids` that have no job in the queue, in any state: those that an add would add again
 * (BullMQ dedupes an id by its job hash, `queue.toKey(id)`). One round trip however many ids; all of a
 * queue's keys share its hash tag (redis-keys.ts), so a call touches one Cluster slot.
 */
export async function missingJobIds(redis: RedisClient, queue: Queue, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const pipeline = redis.pipeline();
  for (let i = 0; i < ids.length; i += SLICE) {
    const keys = ids.slice(i, i + SLICE).map((id) => queue.toKey(id));
    pipeline.eval(MISSING_SCRIPT, keys.length, ...keys);
  }
  const answers = pipelineResults(await pipeline.exec()) as number[][];
  return answers.flatMap((positions, slice) => positions.map((position) => ids[slice * SLICE + position - 1]!));
}
