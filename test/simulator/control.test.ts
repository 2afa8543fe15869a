import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.ts';
import { call, json, TEST_KEY } from './simulator-requests.ts';

const ADDRESS = `0x${'ab'.repeat(32)}`;
let simulator: RunningSimulator;

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: TEST_KEY, fixedTimeMs: Date.parse('2026-03-01T00:00:00Z') });
});
afterAll(async () => {
  await simulator.close();
});

describe('/_simulator/ control endpoints', () => {
  it('serve the stats without counting themselves, and reset them', async () => {
    simulator.resetStats();
    await call(simulator, '/v2/defi/protocols');
    expect(json(await call(simulator, '/_simulator/stats'))).toMatchObject({ requests: 1, byStatus: { '200': 1 } });
    expect((await call(simulator, '/_simulator/stats/reset', { body: {} })).status).toBe(200);
    expect(simulator.stats().requests).toBe(0);
  });

  it('change faults and the clock', async () => {
    expect((await call(simulator, '/_simulator/faults', { body: { error5xxRate: 1 } })).status).toBe(200);
    expect((await call(simulator, '/v2/defi/protocols')).status).toBeGreaterThanOrEqual(500);
    expect((await call(simulator, '/_simulator/faults', { body: { error5xxRate: 2 } })).status).toBe(400);
    expect((await call(simulator, '/_simulator/faults', { body: { error5xxRate: 0 } })).status).toBe(200);

    const before = (await call(simulator, `/v2/address/${ADDRESS}/positions`)).text;
    expect((await call(simulator, '/_simulator/clock', { body: { offsetMs: 30 * 86_400_000 } })).status).toBe(200);
    expect((await call(simulator, `/v2/address/${ADDRESS}/positions`)).text).not.toBe(before);
    expect((await call(simulator, '/_simulator/clock', { body: { offsetMs: 'later' } })).status).toBe(400);
  });

  it('need the API key like everything else', async () => {
    expect((await call(simulator, '/_simulator/stats', { apiKey: null })).status).toBe(401);
    expect((await call(simulator, '/_simulator/faults', { apiKey: 'wrong', body: { error5xxRate: 1 } })).status).toBe(
      401,
    );
  });
});
