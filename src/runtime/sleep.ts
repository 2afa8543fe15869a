import { setTimeout as delay } from 'node:timers/promises';

/** The longest delay a Node timer holds (2^31 - 1 ms, about 24.8 days); past it, setTimeout fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `ms` milliseconds (rounded up, so a wait is never cut short; clamped to MAX_TIMER_MS), or
 * rejects with the signal's reason as soon as it is aborted.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(ms))), undefined, { signal }).catch((error: unknown) => {
    throw signal?.aborted ? signal.reason : error;
  });
}
