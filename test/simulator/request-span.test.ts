import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.ts';
import { call, TEST_KEY } from './simulator-requests.ts';

let simulator: RunningSimulator;

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: TEST_KEY, faultSeed: 1 });
});
afterAll(async () => {
  await simulator.close();
});

describe('the span of the requests in the stats', () => {
  it('is null before any request and after a reset', async () => {
    expect(simulator.stats()).toMatchObject({ firstRequestAt: null, lastRequestAt: null });
    await call(simulator, '/v2/defi/protocols');
    simulator.resetStats();
    expect(simulator.stats()).toMatchObject({ firstRequestAt: null, lastRequestAt: null });
  });

  it('holds the arrival times of the first and the last request, as epoch milliseconds', async () => {
    simulator.resetStats();
    // The simulator's clock (src/simulator/stats.ts): Date.now() drifts from it by a millisecond and more.
    const epochNow = () => performance.timeOrigin + performance.now();
    const before = epochNow();
    await call(simulator, '/v2/defi/protocols');
    const first = simulator.stats();
    await call(simulator, '/v2/defi/protocols');
    await call(simulator, '/v2/defi/protocols', { apiKey: null });
    const after = epochNow();
    const { firstRequestAt, lastRequestAt, requests } = simulator.stats();
    expect(requests).toBe(3);
    expect(firstRequestAt).toBe(first.firstRequestAt);
    expect(first.lastRequestAt).toBe(first.firstRequestAt);
    expect(lastRequestAt!).toBeGreaterThan(firstRequestAt!);
    expect(firstRequestAt!).toBeGreaterThanOrEqual(before);
    expect(lastRequestAt!).toBeLessThanOrEqual(after);
  });
});
