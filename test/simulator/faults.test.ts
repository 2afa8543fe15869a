import pLimit from 'p-limit';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator, type SimulatorFaults } from '../../src/simulator/index.ts';
import { positionsResponse } from '../../src/upstream/schemas.ts';
import { call, TEST_KEY, type SimulatorAnswer } from './simulator-requests.ts';

const ADDRESS = `0x${'ab'.repeat(32)}`;
const POSITIONS = `/v2/address/${ADDRESS}/positions`;

let simulator: RunningSimulator | undefined;
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

async function start(faults: Partial<SimulatorFaults>, faultSeed = 42): Promise<RunningSimulator> {
  simulator = await startSimulator({
    apiKey: TEST_KEY,
    fixedTimeMs: Date.parse('2026-03-01T00:00:00Z'),
    faults,
    faultSeed,
  });
  return simulator;
}

/**
 * n requests, 16 at a time; a request without an answer within 2 s counts as 'timeout' (the
 * simulator's held-open requests; real answers come in milliseconds, even on a loaded machine).
 */
async function many(sim: RunningSimulator, n: number): Promise<(SimulatorAnswer | 'timeout')[]> {
  const limit = pLimit(16);
  return Promise.all(
    Array.from({ length: n }, () =>
      limit(async () => {
        try {
          return await call(sim, POSITIONS, { signal: AbortSignal.timeout(2_000) });
        } catch (error) {
          if ((error as Error).name === 'TimeoutError') return 'timeout' as const;
          throw error;
        }
      }),
    ),
  );
}

function readsAsPositions(text: string): boolean {
  try {
    return positionsResponse.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
}

describe('fault knobs', () => {
  it('inject each fault at about its rate over 500 requests, with the documented bodies', async () => {
    const sim = await start({
      error5xxRate: 0.1,
      error429Rate: 0.1,
      malformedRate: 0.1,
      timeoutRate: 0.04,
      retryAfterSeconds: 7,
    });
    const answers = await many(sim, 500);
    const timeouts = answers.filter((answer) => answer === 'timeout');
    const answered = answers.filter((answer): answer is SimulatorAnswer => answer !== 'timeout');
    const errors5xx = answered.filter((answer) => answer.status >= 500);
    const limited = answered.filter((answer) => answer.status === 429);
    const ok = answered.filter((answer) => answer.status === 200);
    const malformed = ok.filter((answer) => !readsAsPositions(answer.text));

    // The simulator's own count of the requests it held open: independent of the client's clock.
    expect(timeouts.length).toBe(sim.stats().byStatus.timeout);
    expect(timeouts.length).toBeGreaterThan(10);
    expect(timeouts.length).toBeLessThan(35);
    for (const share of [errors5xx, limited, malformed]) {
      expect(share.length).toBeGreaterThan(30);
      expect(share.length).toBeLessThan(75);
    }
    expect(ok.length - malformed.length + errors5xx.length + limited.length + malformed.length + timeouts.length).toBe(
      500,
    );
    expect(new Set(errors5xx.map((answer) => answer.status))).toEqual(new Set([500, 502, 503]));
    expect(errors5xx.some((answer) => answer.text.startsWith('<html>'))).toBe(true);
    expect(errors5xx.some((answer) => answer.text.startsWith('{'))).toBe(true);
    expect(limited.every((answer) => answer.headers.get('retry-after') === '7')).toBe(true);
    const invalidJson = malformed.filter((answer) => {
      try {
        JSON.parse(answer.text);
        return false;
      } catch {
        return true;
      }
    });
    expect(invalidJson.length).toBeGreaterThan(0);
    expect(invalidJson.length).toBeLessThan(malformed.length);

    const stats = sim.stats();
    expect(stats.requests).toBe(500);
    expect(stats.byStatus.timeout).toBe(timeouts.length);
    expect(stats.byOperation.positions).toBe(500);
  });

  it('draw the same faults for the same faultSeed, whatever the order', async () => {
    const count = async (faultSeed: number) => {
      const sim = await start({ error5xxRate: 0.2, malformedRate: 0.2 }, faultSeed);
      await many(sim, 200);
      const { byStatus } = sim.stats();
      await sim.close();
      simulator = undefined;
      return byStatus;
    };
    expect(await count(7)).toEqual(await count(7));
  });

  it('can be changed while running', async () => {
    const sim = await start({});
    expect((await call(sim, POSITIONS)).status).toBe(200);
    sim.setFaults({ error5xxRate: 1 });
    expect((await call(sim, POSITIONS)).status).toBeGreaterThanOrEqual(500);
    sim.setFaults({ error5xxRate: 0, error429Rate: 1, retryAfterSeconds: 3 });
    const limited = await call(sim, POSITIONS);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(() => sim.setFaults({ error5xxRate: 0.5, malformedRate: 0.6 })).toThrow(/must not exceed 1/);
    expect(() => sim.setFaults({ spikeRate: -1 })).toThrow(/non-negative/);
  });

  it('delays answers by the latency', async () => {
    const sim = await start({ latencyMs: 150 });
    const started = performance.now();
    expect((await call(sim, POSITIONS)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('rate limit: answers 429 with Retry-After past the limit in a trailing second, then lets requests through again', async () => {
    const sim = await start({ rateLimit: 5 });
    const answers = await Promise.all(Array.from({ length: 15 }, () => call(sim, POSITIONS)));
    const limited = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(5);
    expect(limited).toHaveLength(10);
    for (const answer of limited) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(answer.text)).toMatchObject({ error: 'rate_limited' });
    }
    expect(sim.stats().maxInTrailingSecond).toBe(15);
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(limited[0]!.headers.get('retry-after'))));
    expect((await call(sim, POSITIONS)).status).toBe(200);
  });
});
