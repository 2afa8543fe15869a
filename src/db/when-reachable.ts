import { sleep } from '../runtime/sleep.ts';
import { isConnectionLost } from './lost-connection.ts';

interface ReachableWait {
  /** How long to keep trying after the first failure; then its error is thrown. */
  waitMs: number;
  pollMs?: number;
  /** Called once, at the first failure (to say what is waited for). */
  onWait?: (error: unknown) => void;
}

/**
 * Runs `work`, and again every `pollMs` for up to `waitMs` while Postgres does not answer: for what
 * must be written or read once it is back (a job's final failure, a command's outcome).
 */
export async function whenReachable<T>(work: () => Promise<T>, wait: ReachableWait): Promise<T> {
  const deadline = Date.now() + wait.waitMs;
  for (let first = true; ; first = false) {
    try {
      return await work();
    } catch (error) {
      // A connection lost, or refused (Postgres restarting).
      const unreachable = isConnectionLost(error) || (error as { code?: unknown } | undefined)?.code === 'ECONNREFUSED';
      if (!unreachable || Date.now() >= deadline) throw error;
      if (first) wait.onWait?.(error);
      await sleep(wait.pollMs ?? 1_000);
    }
  }
}
