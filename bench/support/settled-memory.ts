import { setFlagsFromString } from 'node:v8';
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
export function settledMemoryUsage(): NodeJS.MemoryUsage {
  fullGc();
  return process.memoryUsage();
}
