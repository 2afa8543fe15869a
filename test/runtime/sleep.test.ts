import { describe, expect, it } from 'vitest';
import { sleep } from '../../src/runtime/sleep.ts';

describe('sleep', () => {
  it('waits at least the time asked, rounded up', async () => {
    const started = performance.now();
    await sleep(20.2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(20);
  });

  it("rejects with the signal's own reason, when aborted during the wait or before it", async () => {
    const reason = new Error('shutting down');
    const during = new AbortController();
    const waiting = sleep(60_000, during.signal);
    during.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(sleep(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});
