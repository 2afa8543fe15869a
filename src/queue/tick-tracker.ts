import type { RedisClient } from '../runtime/redis-connection.ts';
import { tickKeys } from './redis-keys.ts';
import { tickLabel } from './jobs.ts';
import { pipelineResults } from './pipeline-results.ts';
import type { TickStream } from '../datasets.ts';

/**
 * Knows when every job of a tick has a final outcome (superseded ones included). Ids move from pending
 * to finished, so a job re-run after a crash counts once and a second producer only adds what is new;
 * exactly one caller learns that the tick completed, and sends the NOTIFY.
 */
export const TTL_SECONDS = 3 * 24 * 3600;

// KEYS: pending, finished, completed, superseded. Shared tail: complete the tick once when nothing is pending.
const COMPLETE_IF_DONE = `
for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ARGV[1]) end
if redis.call('SCARD', KEYS[1]) == 0 and redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[1]) then return 1 end
return 0
`;

// ARGV: ttl, job ids. Ids already finished stay finished; a new id reopens a completed tick.
const EXPECT_SCRIPT = `
for i = 2, #ARGV do
  if redis.call('SISMEMBER', KEYS[2], ARGV[i]) == 0 and redis.call('SADD', KEYS[1], ARGV[i]) == 1 then
    redis.call('DEL', KEYS[3])
  end
end
${COMPLETE_IF_DONE}`;

// ARGV: ttl, job id.
const FINISH_SCRIPT = `
redis.call('SREM', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[2])
${COMPLETE_IF_DONE}`;

// ARGV: ttl, job ids. Only ids still pending are superseded; returns 1 when that completes the tick
// and then the ids it superseded (a second producer superseding the same ids gets none).
const SUPERSEDE_SCRIPT = `
local superseded = {}
for i = 2, #ARGV do
  if redis.call('SREM', KEYS[1], ARGV[i]) == 1 then
    redis.call('SADD', KEYS[2], ARGV[i])
    redis.call('SADD', KEYS[4], ARGV[i])
    superseded[#superseded + 1] = ARGV[i]
  end
end
local function completeIfDone()
${COMPLETE_IF_DONE}
end
local completed = 0
if #superseded > 0 then completed = completeIfDone() end
return {completed, superseded}
`;

// ARGV: ttl, job ids. A superseded job that runs after all (price catch-up) is no longer superseded.
const REOPEN_SCRIPT = `
local moved = 0
for i = 2, #ARGV do
  moved = moved + redis.call('SREM', KEYS[2], ARGV[i])
  redis.call('SREM', KEYS[4], ARGV[i])
  redis.call('SADD', KEYS[1], ARGV[i])
end
if moved > 0 then redis.call('DEL', KEYS[3]) end
for _, key in ipairs({KEYS[1], KEYS[2], KEYS[4]}) do redis.call('EXPIRE', key, ARGV[1]) end
return moved
`;

const BATCH = 1000;

export type TickTracker = ReturnType<typeof createTickTracker>;

export function createTickTracker(redis: RedisClient, prefix: string) {
  const keys = (stream: TickStream, tick: Date) => tickKeys(prefix, stream, tickLabel(tick));
  /**
   * Runs a script on the tick's keys, BATCH ids per call (a short script never holds Redis long),
   * every call in one pipeline: one round trip however many ids (`evenEmpty`: once with no ids too).
   */
  async function run(script: string, stream: TickStream, tick: Date, ids: string[], evenEmpty = false) {
    const calls: string[][] = [];
    for (let i = 0; i < ids.length || (evenEmpty && i === 0); i += BATCH) calls.push(ids.slice(i, i + BATCH));
    const args = (batch: string[]) => [...keys(stream, tick), TTL_SECONDS, ...batch];
    if (calls.length === 0) return [];
    // A single call (a worker's finish) goes alone, as it always did.
    if (calls.length === 1) return [await redis.eval(script, 4, ...args(calls[0]!))];
    const pipeline = redis.pipeline();
    for (const batch of calls) pipeline.eval(script, 4, ...args(batch));
    return pipelineResults(await pipeline.exec());
  }
  return {
    /** Records the tick's job ids; true when that completes it (a tick with no jobs, or all finished). */
    async expect(stream: TickStream, tick: Date, ids: string[]): Promise<boolean> {
      return (await run(EXPECT_SCRIPT, stream, tick, ids, true)).includes(1);
    },
    /** Marks one job finished; true for exactly one caller: the one that completed the tick. */
    async finish(stream: TickStream, tick: Date, id: string): Promise<boolean> {
      return (await run(FINISH_SCRIPT, stream, tick, [id])).includes(1);
    },
    /**
     * Marks pending jobs as superseded (finished without running); ids no longer pending are left
     * alone. `completed` is true for exactly one caller: the one whose superseding completed the tick.
     */
    async supersede(stream: TickStream, tick: Date, ids: string[]) {
      const results = (await run(SUPERSEDE_SCRIPT, stream, tick, ids)) as [number, string[]][];
      return {
        superseded: results.flatMap(([, superseded]) => superseded),
        completed: results.some(([completed]) => completed === 1),
      };
    },
    /** `finished` counts the superseded jobs too. */
    async progress(stream: TickStream, tick: Date) {
      const [pendingKey, finishedKey, completedKey, supersededKey] = keys(stream, tick);
      const [pending, finished, completed, superseded] = pipelineResults(
        await redis.pipeline().scard(pendingKey).scard(finishedKey).exists(completedKey).scard(supersededKey).exec(),
      ) as number[];
      return { expected: pending + finished, finished, superseded, complete: completed === 1 };
    },
    /** Finished jobs that run again (re-enqueued after removal, or retried by hand) are pending again. */
    async reopen(stream: TickStream, tick: Date, ids: string[]): Promise<void> {
      await run(REOPEN_SCRIPT, stream, tick, ids);
    },
  };
}
