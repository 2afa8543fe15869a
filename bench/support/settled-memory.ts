import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A full garbage collection on demand without starting node with --expose-gc: the flag set at run
// time exposes gc() to contexts made after it.
setFlagsFromString('--expose-gc');
const fullGc = runInNewContext('gc') as () => void;

/**
 * process.memoryUsage() right after a full garbage collection: the heap is then what the process
 * keeps, not what it happened to leave for the collector at that moment (a leak shows here, garbage
 * does not).
 */
export function settledMemoryUsage(): SettledMemory {
  fullGc();
  const youngGeneration = getHeapSpaceStatistics()
    .filter((space) => space.space_name === 'new_space' || space.space_name === 'new_large_object_space')
    .reduce((sum, space) => sum + space.space_size, 0);
  return { ...process.memoryUsage(), youngGeneration };
}

/** process.memoryUsage() with the bytes V8 holds for its young generation (part of heapTotal). */
export interface SettledMemory extends NodeJS.MemoryUsage {
  /** new_space and new_large_object_space: V8 grows them with the allocation rate, up to --max-semi-space-size. */
  youngGeneration: number;
}
