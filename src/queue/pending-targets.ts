import type { RedisClient } from '../runtime/redis-connection.ts';
import { pipelineResults } from './pipeline-results.ts';
import { pendingTargetsKey } from './redis-keys.ts';
import type { Dataset } from '../datasets.ts';

/**
 * The newest job of each target, one Redis hash per dataset: `target -> "<tick ms>|<job id>"`. A producer
 * claims its targets before enqueuing and learns which jobs are replaced, older ones or its own (a late
 * producer of an older tick). The hash only moves forward, so that two schedulers agree.
 */
export type TargetJob = { target: string; tick: Date; jobId: string };

/** A job that a job of a newer tick (`by`) of the same target replaces. */
export type Supersession = { job: TargetJob; by: Date };

/** `replaced`: older jobs of the same targets, now replaced; `stale`: this tick's jobs whose target has a newer job. */
export type TargetClaim = { replaced: Supersession[]; stale: Supersession[] };

// ARGV: triples of target, tick ms, job id. Returns a flat list of: kind (1 replaced, 2 stale),
// target, the superseded job's value, the newer job's value.
const CLAIM_SCRIPT = `
local out = {}
for i = 1, #ARGV, 3 do
  local target, tick, value = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 1] .. '|' .. ARGV[i + 2]
  local current = redis.call('HGET', KEYS[1], target)
  local currentTick = current and tonumber(string.match(current, '^(%d+)|')) or nil
  local report = nil
  if not currentTick or currentTick < tick then
    redis.call('HSET', KEYS[1], target, value)
    if current then report = {1, target, current, value} end
  elseif currentTick > tick then
    report = {2, target, value, current}
  end
  if report then
    for _, item in ipairs(report) do out[#out + 1] = item end
  end
end
return out
`;

// ARGV: pairs of target, value. Deletes each target whose value is still the one given.
const RELEASE_SCRIPT = `
local released = {}
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
    released[#released + 1] = ARGV[i]
  end
end
return released
`;

const BATCH = 1000;

export function createPendingTargets(redis: RedisClient, prefix: string) {
  return {
    async claim(dataset: Dataset, jobs: TargetJob[]): Promise<TargetClaim> {
      const key = pendingTargetsKey(prefix, dataset);
      const claim: TargetClaim = { replaced: [], stale: [] };
      // BATCH jobs per script call, so that none holds Redis long; every call in one round trip.
      const pipeline = redis.pipeline();
      for (let i = 0; i < jobs.length; i += BATCH) {
        const args = jobs.slice(i, i + BATCH).flatMap((job) => [job.target, String(job.tick.getTime()), job.jobId]);
        pipeline.eval(CLAIM_SCRIPT, 1, key, ...args);
      }
      if (pipeline.length === 0) return claim;
      for (const out of pipelineResults(await pipeline.exec()) as (number | string)[][]) {
        for (let j = 0; j < out.length; j += 4) {
          const target = String(out[j + 1]);
          const job = parseTargetJob(target, String(out[j + 2]));
          const by = parseTargetJob(target, String(out[j + 3])).tick;
          (out[j] === 1 ? claim.replaced : claim.stale).push({ job, by });
        }
      }
      return claim;
    },
    /**
     * Forgets the targets not among `watched` and returns their newest jobs, superseded by `tick`: a job
     * still waiting for an address removed from the watchlist must not hold the quota.
     */
    async release(dataset: Dataset, watched: Set<string>, tick: Date): Promise<Supersession[]> {
      const key = pendingTargetsKey(prefix, dataset);
      const all = await redis.hgetall(key);
      const gone = Object.entries(all).filter(([target]) => !watched.has(target));
      const released: Supersession[] = [];
      if (gone.length === 0) return released;
      const pipeline = redis.pipeline();
      for (let i = 0; i < gone.length; i += BATCH)
        pipeline.eval(RELEASE_SCRIPT, 1, key, ...gone.slice(i, i + BATCH).flat());
      const done = new Set((pipelineResults(await pipeline.exec()) as string[][]).flat());
      for (const [target, value] of gone)
        if (done.has(target)) released.push({ job: parseTargetJob(target, value), by: tick });
      return released;
    },
  };
}

function parseTargetJob(target: string, value: string): TargetJob {
  const separator = value.indexOf('|');
  return { target, tick: new Date(Number(value.slice(0, separator))), jobId: value.slice(separator + 1) };
}
