import type { Job, Queue } from 'bullmq';

/** Waits until job `id` has completed or failed for good; its job and that state. */
export async function settled(
  queue: Queue,
  id: string,
  timeoutMs = 30_000,
): Promise<{ job: Job; state: 'completed' | 'failed' }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await queue.getJobState(id);
    if (state === 'completed' || state === 'failed') return { job: (await queue.getJob(id))!, state };
    if (Date.now() > deadline) throw new Error(`job ${id} still ${state} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
