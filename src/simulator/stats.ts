import { hashOf } from './hash.ts';
import { requestWindow } from './request-window.ts';

export type Operation = 'prices' | 'positions' | 'nfts' | 'protocols';

const PER_SECOND_LIMIT = 3600;

/** What the simulator has seen since it started or its stats were last reset. */
const noStats = () => ({
  requests: 0,
  /** By status code ('200', '401', '429', '500', ...) and 'timeout' for requests never answered. */
  byStatus: {} as Record<string, number>,
  byOperation: {} as Record<string, number>,
  /** The most requests received in any trailing 1000 ms window so far. */
  maxInTrailingSecond: 0,
  /** Distinct x-api-key values seen (a request without the header counts as none). */
  apiKeysSeen: 0,
  /**
   * Arrival times (epoch milliseconds, sub-millisecond precision) of the first and the last request,
   * null before any: requests / (last - first) is the rate a client achieved.
   */
  firstRequestAt: null as number | null,
  lastRequestAt: null as number | null,
  /** Requests received in each whole second since the first one (at most the first hour). */
  perSecond: [] as number[],
});
export type SimulatorStats = ReturnType<typeof noStats>;

export class StatsRecorder {
  private stats = noStats();
  private readonly window = requestWindow(1000);
  /** Hashes, not the keys: the simulator holds no copy of what clients send as secrets. */
  private readonly keys = new Set<number>();

  /** `now` is performance.now() of the arrival. */
  arrived(now: number, apiKey: string | undefined, operation: Operation | undefined): void {
    const stats = this.stats;
    stats.requests++;
    const at = performance.timeOrigin + now;
    stats.firstRequestAt ??= at;
    stats.lastRequestAt = at;
    const second = Math.floor((at - stats.firstRequestAt) / 1000);
    if (second < PER_SECOND_LIMIT) {
      while (stats.perSecond.length <= second) stats.perSecond.push(0);
      stats.perSecond[second]!++;
    }
    this.window.add(now);
    stats.maxInTrailingSecond = Math.max(stats.maxInTrailingSecond, this.window.count(now));
    if (apiKey !== undefined) this.keys.add(hashOf(apiKey));
    if (operation) stats.byOperation[operation] = (stats.byOperation[operation] ?? 0) + 1;
  }

  answered(status: number | 'timeout'): void {
    const key = String(status);
    this.stats.byStatus[key] = (this.stats.byStatus[key] ?? 0) + 1;
  }

  snapshot(): SimulatorStats {
    return { ...structuredClone(this.stats), apiKeysSeen: this.keys.size };
  }

  reset(): void {
    this.stats = noStats();
    this.window.clear();
    this.keys.clear();
  }
}
