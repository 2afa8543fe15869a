import type { SimulatorFaults } from '../../src/simulator/index.ts';
import { sleep } from '../../src/runtime/sleep.ts';

/**
 * The simulator process's control endpoints that SimulatorProcess leaves out (src/simulator/server.ts):
 * its faults (such as the strict rate limit) and its world clock.
 */
export interface SimulatorControl {
  setFaults(faults: Partial<SimulatorFaults>): Promise<void>;
  /** World time = the simulator's fixed time + offsetMs. */
  setClockOffset(offsetMs: number): Promise<void>;
}

export function simulatorControl(url: string, apiKey: string): SimulatorControl {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${url}/_simulator/${path}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`simulator POST ${path}: HTTP ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  return {
    setFaults: (faults) => post('faults', faults),
    setClockOffset: (offsetMs) => post('clock', { offsetMs: Math.round(offsetMs) }),
  };
}

/**
 * Keeps the world clock of a simulator started with a fixed time (`--fixed-time fixedTimeMs`) on
 * `worldTime()`, set every `everyMs` until stopped. Between two settings the world stands still, so
 * `worldTime` should lead by one interval: a world clock behind the scheduler's would answer a price
 * fetched at the start of its slot with the previous minute's price, and the slot would be left
 * without one, unnoticed.
 */
export function followWorldClock(
  control: SimulatorControl,
  fixedTimeMs: number,
  worldTime: () => number,
  everyMs: number,
): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await control.setClockOffset(worldTime() - fixedTimeMs);
      await sleep(everyMs);
    }
  })();
  // stop() rethrows a failure; until then it must not count as unhandled.
  loop.catch(() => {});
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
