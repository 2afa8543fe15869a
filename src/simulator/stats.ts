import { hashOf } from './hash.ts';
import { RequestWindow } from './request-window.ts';

export type Operation = 'prices' | 'positions' | 'nfts' | 'protocols';

/** What the simulator has seen since it started or its stats were last reset. */
export interface SimulatorStats {
  requests: number;
  /** By status code ('200', '401', '429', '500', ...) and 'timeout' for requests never answered. */
  byStatus: Record<string, number>;
  byOperation: Record<string, number>;
  /** The most requests received in any trailing 1000 ms window so far. */
  maxInTrailingSecond: number;
  /** Distinct x-api-key values seen (a request without the header counts as none). */
  apiKeysSeen: number;
  /**
   * Arrival times (epoch milliseconds, sub-millisecond precision) of the first and the last request,
   * null before any: requests / (last - first) is the rate a client achieved.
   */
  firstRequestAt: number | null;
  lastRequestAt: number | null;
  /** Requests received in each whole second since the first one (at most the first hour). */
  perSecond: number[];
}

const PER_SECOND_LIMIT = 3600;

export class StatsRecorder {
  private requests = 0;
  private byStatus: Record<string, number> = {};
  private byOperation: Record<string, number> = {};
  private maxInTrailingSecond = 0;
  private firstRequestAt: number | null = null;
  private lastRequestAt: number | null = null;
  private perSecond: number[] = [];
  private readonly window = new RequestWindow(1000);
  /** Hashes, not the keys: the simulator holds no copy of what clients send as secrets. */
  private readonly keys = new Set<number>();

  /** `now` is performance.now() of the arrival. */
  arrived(now: number, apiKey: string | undefined, operation: Operation | undefined): void {
    this.requests++;
    const at = performance.timeOrigin + now;
    this.firstRequestAt ??= at;
    this.lastRequestAt = at;
    const second = Math.floor((at - this.firstRequestAt) / 1000);
    if (second < PER_SECOND_LIMIT) {
      while (this.perSecond.length <= second) this.perSecond.push(0);
      this.perSecond[second]!++;
    }
    this.window.add(now);
    this.maxInTrailingSecond = Math.max(this.maxInTrailingSecond, this.window.count(now));
    if (apiKey !== undefined) this.keys.add(hashOf(apiKey));
    if (operation) this.byOperation[operation] = (this.byOperation[operation] ?? 0) + 1;
  }

  answered(status: number | 'timeout'): void {
    const key = String(status);
    this.byStatus[key] = (this.byStatus[key] ?? 0) + 1;
  }

  snapshot(): SimulatorStats {
    return {
      requests: this.requests,
      byStatus: { ...this.byStatus },
      byOperation: { ...this.byOperation },
      maxInTrailingSecond: this.maxInTrailingSecond,
      apiKeysSeen: this.keys.size,
      firstRequestAt: this.firstRequestAt,
      lastRequestAt: this.lastRequestAt,
      perSecond: [...this.perSecond],
    };
  }

  reset(): void {
    this.requests = 0;
    this.byStatus = {};
    this.byOperation = {};
    this.maxInTrailingSecond = 0;
    this.firstRequestAt = null;
    this.lastRequestAt = null;
    this.perSecond = [];
    this.window.clear();
    this.keys.clear();
  }
}
