import { getHeapStatistics } from 'node:v8';
import { ConfigError } from '../errors.ts';
import type { Options } from './options.ts';

/** The heap docs/operations.md recommends for worker processes (and `start`, `run-once`). */
export const WORKER_OLD_SPACE_MB = 192;
export const WORKER_SEMI_SPACE_MB = 16;

/** Node's flags for a worker heap of `oldSpaceMb` (the documented one by default). */
export function workerHeapFlags(oldSpaceMb = WORKER_OLD_SPACE_MB): string[] {
  return [`--max-old-space-size=${oldSpaceMb}`, `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`];
}

// What one answer costs a worker, from bench/tools/answer-memory.ts (docs/benchmarks.md, "One
// answer at the limits"), rounded up: the worst answers of 8 MiB and 100,000 values kept at most
// 66 MB alive and ran whole under half the documented heap.
/** A worker's own heap, its queues, connections and modules, before any answer. */
const BASE_MB = 40;
/** The body as text, its copy for raw_responses and what writing it takes. */
const HEAP_BYTES_PER_BODY_BYTE = 3;
/** A parsed JSON value and the rows it becomes (an NFT token of 2 values: one nft_tokens row). */
const HEAP_BYTES_PER_VALUE = 400;

/** What an answer of `bytes` holding `values` JSON values may cost the heap, from its decoding to its job's end. */
export function answerHeapBytes(bytes: number, values: number): number {
  return bytes * HEAP_BYTES_PER_BODY_BYTE + values * HEAP_BYTES_PER_VALUE;
}

/**
 * The heap the answers a process holds may take together: what one answer at both limits costs.
 * Answers that would pass it together wait for one another (upstream/answer-budget.ts).
 */
export function answerBudgetBytes(options: Pick<Options, 'UPSTREAM_MAX_BODY_BYTES' | 'UPSTREAM_MAX_ELEMENTS'>): number {
  return answerHeapBytes(options.UPSTREAM_MAX_BODY_BYTES, options.UPSTREAM_MAX_ELEMENTS);
}

/** The heap a worker needs, in MB: its own, and the answers it holds (at most one at both limits). */
export function answerHeapMb(options: Pick<Options, 'UPSTREAM_MAX_BODY_BYTES' | 'UPSTREAM_MAX_ELEMENTS'>): number {
  return Math.ceil(BASE_MB + answerBudgetBytes(options) / 1024 / 1024);
}

/**
 * Refuses to process answers in a heap that one answer within the limits could fill (V8 would stop
 * the process, and the next worker would take the job and stop too): the two limits and the
 * process's heap (--max-old-space-size) must agree.
 */
export function assertHeapFitsAnswers(
  options: Pick<Options, 'UPSTREAM_MAX_BODY_BYTES' | 'UPSTREAM_MAX_ELEMENTS'>,
  heapLimitBytes = getHeapStatistics().heap_size_limit,
): void {
  const needed = answerHeapMb(options);
  const heapMb = Math.floor(heapLimitBytes / 1024 / 1024);
  if (needed <= heapMb) return;
  throw new ConfigError(
    `UPSTREAM_MAX_BODY_BYTES (${options.UPSTREAM_MAX_BODY_BYTES}) and UPSTREAM_MAX_ELEMENTS ` +
      `(${options.UPSTREAM_MAX_ELEMENTS}) let through answers that need about ${needed} MB of heap, and this ` +
      `process has ${heapMb} MB: lower them, or raise --max-old-space-size in NODE_OPTIONS (docs/operations.md, "Memory")`,
  );
}
