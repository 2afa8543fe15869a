import { describe, expect, it } from 'vitest';
import { FaultDraws, resolveFaults } from '../../src/simulator/faults.ts';

describe('FaultDraws', () => {
  it('add latency, jitter within its range and spikes at about their rate', () => {
    const faults = resolveFaults({ latencyMs: 10, latencyJitterMs: 5, spikeRate: 0.2, spikeMs: 1000 });
    const draws = new FaultDraws(3);
    const delays = Array.from({ length: 1000 }, () => draws.draw(faults).delayMs);
    const spikes = delays.filter((delay) => delay >= 1000);
    expect(spikes.length).toBeGreaterThan(150);
    expect(spikes.length).toBeLessThan(250);
    for (const delay of delays) {
      const base = delay >= 1000 ? delay - 1000 : delay;
      expect(base).toBeGreaterThanOrEqual(10);
      expect(base).toBeLessThan(15);
    }
  });

  it('draw the same sequence from the same seed', () => {
    const faults = resolveFaults({ error5xxRate: 0.3, timeoutRate: 0.1 });
    const kinds = (seed: number) => {
      const draws = new FaultDraws(seed);
      return Array.from({ length: 100 }, () => draws.draw(faults).kind);
    };
    expect(kinds(5)).toEqual(kinds(5));
    expect(kinds(5)).not.toEqual(kinds(6));
  });
});
