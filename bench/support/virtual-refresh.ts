import type { AddressDataset } from '../../src/datasets.ts';
import { estimateChangeRate, NO_EVIDENCE, observe, type History } from '../../src/refresh/change-rate.ts';
import { demandOf, PRIOR_RATE_PER_HOUR } from '../../src/refresh/lifecycle.ts';
import { refreshBudget, selectDue, slotShare, type RefreshTarget } from '../../src/refresh/policy.ts';
import { addressRequestsPerHour } from '../../src/scheduler/refresh-slot.ts';
import { PACING_MARGIN } from '../../src/upstream/rate-limiter.ts';

/**
 * The refresh of address targets in virtual time (`npm run bench -- cadence`): the production policy
 * (refresh/policy.ts, change-rate.ts, lifecycle.ts's demand) or a fixed cadence against a world whose
 * change times are known, without sleeping. What it models, and leaves out:
 * - one upstream request every 1.04 × 60 / quota seconds (the pacer's spacing), taken in the order
 *   DATASET_PRIORITY gives the pacer's waiters: prices, then positions, then NFT jobs, each dataset's
 *   jobs in the order enqueued;
 * - a slot enqueues its jobs at its tick: the fixed cadence every target, stalest first, replacing
 *   the target's job still waiting (supersede.ts); the policy the targets selectDue picks, a target
 *   whose job still waits being passed over (refresh-slot.ts);
 * - a refresh answers the world at the time its request goes out: it sees every change since the
 *   previous refresh's request, each detected after (request time − change time), and counts them
 *   as the slots they changed (substance.ts's count: two changes of one position are one);
 * - no latency, failure or retry; the 3 % headroom of the policy is left unspent.
 */

export interface VirtualWorld {
  /** Changes (time in ms, ascending, and the slot changed) of a target's dataset in (fromMs, toMs]. */
  changes(target: string, dataset: AddressDataset, fromMs: number, toMs: number): { atMs: number; slot: number }[];
}

export interface VirtualRunSettings {
  policy: 'fixed' | 'rate';
  targets: string[];
  startMs: number;
  /** Changes at or after this are measured (the run before it warms the estimates up). */
  measureFromMs: number;
  endMs: number;
  quotaPerMinute: number;
  /** Price requests each minute (watched tokens / 50). */
  priceRequestsPerMinute: number;
  periodsMs: Record<AddressDataset, number>;
  maxAgeMs: number;
  /** The true rates (changes per hour) in place of the estimates: the policy with perfect knowledge. */
  oracle?: (target: string, dataset: AddressDataset) => number;
}

export interface DetectedChange {
  target: string;
  dataset: AddressDataset;
  atMs: number;
  /** ms from the change to the request that saw it; censored at the end for one never seen. */
  delayMs: number;
  seen: boolean;
}

export interface VirtualRunResult {
  changes: DetectedChange[];
  requests: Record<AddressDataset | 'prices', number>;
  /** The longest time any target went between two requests (or from its last to the end), per dataset. */
  longestGapMs: Record<AddressDataset, number>;
  /** Targets that went longer than the max age without a request (after the warm-up), per dataset. */
  overMaxAge: Record<AddressDataset, number>;
}

interface TargetState {
  target: string;
  dataset: AddressDataset;
  lastTickMs: number | null;
  lastRequestMs: number | null;
  history: History;
  ratePerHour: number;
  /** The tick of its job waiting in the queue, if any. */
  waitingTick: number | null;
  /** Its changes not yet seen, ascending. */
  unseen: { atMs: number; slot: number }[];
  longestGapMs: number;
}

interface Job {
  state: TargetState;
  tickMs: number;
  cancelled: boolean;
}

const DATASETS: AddressDataset[] = ['positions', 'nfts'];
const MINUTE = 60_000;

export function runVirtualRefresh(world: VirtualWorld, settings: VirtualRunSettings): VirtualRunResult {
  const { startMs, endMs, measureFromMs, periodsMs } = settings;
  const states = Object.fromEntries(
    DATASETS.map((dataset) => [
      dataset,
      settings.targets.map((target): TargetState => ({
        target,
        dataset,
        lastTickMs: null,
        lastRequestMs: null,
        history: { evidence: NO_EVIDENCE, recent: [] },
        ratePerHour: PRIOR_RATE_PER_HOUR,
        waitingTick: null,
        unseen: world.changes(target, dataset, startMs, endMs),
        longestGapMs: 0,
      })),
    ]),
  ) as Record<AddressDataset, TargetState[]>;
  const result: VirtualRunResult = {
    changes: [],
    requests: { prices: 0, positions: 0, nfts: 0 },
    longestGapMs: { positions: 0, nfts: 0 },
    overMaxAge: { positions: 0, nfts: 0 },
  };
  const overMaxAge = { positions: new Set<string>(), nfts: new Set<string>() };
  // The pacer's spacing (rate-limiter.ts), and what the policy's budget starts from (refresh-slot.ts).
  const requestMs = (MINUTE * (1 + PACING_MARGIN)) / settings.quotaPerMinute;
  const queues: Record<AddressDataset, { jobs: Job[]; head: number }> = {
    positions: { jobs: [], head: 0 },
    nfts: { jobs: [], head: 0 },
  };
  let pricesOwed = 0;
  const available = addressRequestsPerHour(settings.quotaPerMinute * 60, settings.priceRequestsPerMinute * 60);

  const enqueue = (dataset: AddressDataset, tickMs: number) => {
    const all = states[dataset];
    const slotsPerHour = 3_600_000 / periodsMs[dataset];
    let chosen: TargetState[];
    if (settings.policy === 'fixed') {
      chosen = [...all].sort((a, b) => (a.lastTickMs ?? -Infinity) - (b.lastTickMs ?? -Infinity));
    } else {
      const views = (list: TargetState[]): RefreshTarget[] =>
        list.map((state) => ({
          target: state.target,
          lastTickMs: state.lastTickMs,
          ratePerHour: settings.oracle ? settings.oracle(state.target, dataset) : state.ratePerHour,
          maxAgeMs: settings.maxAgeMs,
          everyMs: null,
          pending: state.waitingTick !== null && state.waitingTick >= tickMs - 2 * periodsMs[dataset],
        }));
      const demands = DATASETS.map((d) => demandOf(d, views(states[d]), 3_600_000 / periodsMs[d]));
      const budget = refreshBudget(available, demands).find((entry) => entry.dataset === dataset)!;
      const share = budget.everySlot ? Infinity : slotShare(budget.perHour / slotsPerHour, tickMs, periodsMs[dataset]);
      const due = selectDue(views(all), { tickMs, periodMs: periodsMs[dataset], slotBudget: share });
      const byTarget = new Map(all.map((state) => [state.target, state]));
      chosen = due.map((entry) => byTarget.get(entry.target)!);
    }
    const chosenSet = new Set(chosen);
    const queue = queues[dataset];
    // A newer job replaces the target's job still waiting.
    for (let i = queue.head; i < queue.jobs.length; i += 1) {
      const job = queue.jobs[i]!;
      if (!job.cancelled && chosenSet.has(job.state)) job.cancelled = true;
    }
    for (const state of chosen) {
      state.waitingTick = tickMs;
      queue.jobs.push({ state, tickMs, cancelled: false });
    }
  };

  const refresh = (job: Job, atMs: number) => {
    const { state } = job;
    result.requests[state.dataset] += 1;
    state.waitingTick = null;
    if (state.lastRequestMs !== null) {
      const gap = atMs - state.lastRequestMs;
      state.longestGapMs = Math.max(state.longestGapMs, gap);
      if (atMs >= measureFromMs && gap > settings.maxAgeMs) overMaxAge[state.dataset].add(state.target);
    }
    const slots = new Set<number>();
    while (state.unseen.length > 0 && state.unseen[0]!.atMs <= atMs) {
      const change = state.unseen.shift()!;
      slots.add(change.slot);
      if (change.atMs >= measureFromMs)
        result.changes.push({
          target: state.target,
          dataset: state.dataset,
          atMs: change.atMs,
          delayMs: atMs - change.atMs,
          seen: true,
        });
    }
    if (state.lastTickMs !== null && job.tickMs > state.lastTickMs) {
      const since = Math.round((job.tickMs - state.lastTickMs) / 1000);
      state.history = observe(state.history, [Math.round(job.tickMs / 1000), since, slots.size]);
      state.ratePerHour = estimateChangeRate(state.history.evidence);
    }
    if (state.lastTickMs === null || job.tickMs > state.lastTickMs) state.lastTickMs = job.tickMs;
    state.lastRequestMs = atMs;
  };

  // One request every requestMs; cron slots at whole minutes.
  let nextMinute = startMs;
  for (let now = startMs; now < endMs; now += requestMs) {
    while (nextMinute <= now) {
      pricesOwed += settings.priceRequestsPerMinute;
      for (const dataset of DATASETS)
        if ((nextMinute - startMs) % periodsMs[dataset] === 0) enqueue(dataset, nextMinute);
      nextMinute += MINUTE;
    }
    if (pricesOwed > 0) {
      pricesOwed -= 1;
      result.requests.prices += 1;
      continue;
    }
    for (const dataset of DATASETS) {
      const queue = queues[dataset];
      while (queue.head < queue.jobs.length && queue.jobs[queue.head]!.cancelled) queue.head += 1;
      if (queue.head < queue.jobs.length) {
        refresh(queue.jobs[queue.head++]!, now);
        break;
      }
    }
    for (const queue of Object.values(queues)) {
      if (queue.head > 100_000) {
        queue.jobs.splice(0, queue.head);
        queue.head = 0;
      }
    }
  }
  for (const dataset of DATASETS) {
    for (const state of states[dataset]) {
      const tail = endMs - (state.lastRequestMs ?? startMs);
      state.longestGapMs = Math.max(state.longestGapMs, tail);
      result.longestGapMs[dataset] = Math.max(result.longestGapMs[dataset], state.longestGapMs);
      // Unrefreshed for longer than the max age at the end (never refreshed at all, too).
      if (tail > settings.maxAgeMs) overMaxAge[dataset].add(state.target);
      for (const { atMs } of state.unseen) {
        if (atMs >= measureFromMs && atMs < endMs)
          result.changes.push({ target: state.target, dataset, atMs, delayMs: endMs - atMs, seen: false });
      }
    }
    result.overMaxAge[dataset] = overMaxAge[dataset].size;
  }
  return result;
}

/** Mean and percentiles (ms) of `values`. */
export function delayStats(values: number[]): { count: number; mean: number; p50: number; p95: number; p99: number } {
  if (values.length === 0) return { count: 0, mean: 0, p50: 0, p95: 0, p99: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    count: sorted.length,
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
  };
}
