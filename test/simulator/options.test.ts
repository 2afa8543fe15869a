import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { loadSimulatorOptions } from '../../src/simulator/options.ts';

describe('loadSimulatorOptions', () => {
  it('reads SIM_* variables, flags winning', () => {
    const options = loadSimulatorOptions(
      { port: '9001', latencyMs: '20' },
      {
        UPSTREAM_API_KEY: 'k',
        SIM_PORT: '9000',
        SIM_LATENCY_MS: '5',
        SIM_LATENCY_JITTER_MS: '3',
        SIM_SPIKE_RATE: '0.01',
        SIM_SPIKE_MS: '2000',
        SIM_ERROR_5XX_RATE: '0.05',
        SIM_ERROR_429_RATE: '0.02',
        SIM_RETRY_AFTER_SECONDS: '2',
        SIM_MALFORMED_RATE: '0.01',
        SIM_TIMEOUT_RATE: '0.01',
        SIM_RATE_LIMIT: '200',
        SIM_POSITIONS: '12',
        SIM_COLLECTIONS: '6',
        SIM_NFTS_PER_COLLECTION: '4',
        SIM_EPOCH_MS: '60000',
        SIM_CLOCK_OFFSET_MS: '-3600000',
        SIM_FIXED_TIME: '2026-01-01T00:00:00Z',
        SIM_SEED: 'world-2',
        SIM_FAULT_SEED: '9',
      },
    );
    expect(options).toEqual({
      host: '127.0.0.1',
      port: 9001,
      apiKey: 'k',
      seed: 'world-2',
      faultSeed: 9,
      faults: {
        latencyMs: 20,
        latencyJitterMs: 3,
        spikeRate: 0.01,
        spikeMs: 2000,
        error5xxRate: 0.05,
        error429Rate: 0.02,
        retryAfterSeconds: 2,
        malformedRate: 0.01,
        timeoutRate: 0.01,
        rateLimit: 200,
      },
      world: { positionsPerAddress: 12, collectionsPerAddress: 6, tokensPerCollection: 4, epochMs: 60_000 },
      clockOffsetMs: -3_600_000,
      fixedTimeMs: Date.parse('2026-01-01T00:00:00Z'),
    });
  });

  it('takes the key from --api-key and a fixed time in milliseconds, with defaults for the rest', () => {
    const options = loadSimulatorOptions({ apiKey: 'flag-key', fixedTime: '1767225600000' }, { SIM_LATENCY_MS: '' });
    expect(options).toMatchObject({
      host: '127.0.0.1',
      port: 8787,
      apiKey: 'flag-key',
      faults: {},
      world: {},
      fixedTimeMs: 1_767_225_600_000,
    });
  });

  it('turns the living world on and runs the world clock at a rate', () => {
    const options = loadSimulatorOptions({ apiKey: 'k', habits: true }, { SIM_CLOCK_RATE: '3600' });
    expect(options).toMatchObject({ world: { habits: true }, clockRate: 3600 });
    expect(() => loadSimulatorOptions({ apiKey: 'k', clockRate: '-1' }, {})).toThrow(/--clock-rate/);
  });

  it('names every bad setting without echoing the key', () => {
    const load = () =>
      loadSimulatorOptions(
        { port: '70000' },
        { UPSTREAM_API_KEY: 'secret-key', SIM_ERROR_5XX_RATE: '1.5', SIM_FIXED_TIME: 'soon' },
      );
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/--port \/ SIM_PORT[\s\S]*SIM_ERROR_5XX_RATE[\s\S]*SIM_FIXED_TIME/);
    expect(() => loadSimulatorOptions({}, {})).toThrow(/UPSTREAM_API_KEY: required/);
    expect(() =>
      loadSimulatorOptions({}, { UPSTREAM_API_KEY: 'k', SIM_ERROR_5XX_RATE: '0.6', SIM_TIMEOUT_RATE: '0.6' }),
    ).toThrow(/must not exceed 1/);
  });
});
