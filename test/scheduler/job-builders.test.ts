import { describe, expect, it } from 'vitest';
import { jobId, tickLabel } from '../../src/queue/jobs.ts';
import { nftJobs, positionJobs, priceJobs } from '../../src/scheduler/job-builders.ts';
import { coin } from '../support/coins.ts';

const tick = new Date('2026-11-21T12:15:00Z');

describe('job builders', () => {
  it('derives ids from dataset, target and tick, without ":"', () => {
    expect(tickLabel(tick)).toBe('2026-11-21T12-15-00Z');
    expect(jobId('positions', '0:abc', tick)).toBe('positions-0_abc-2026-11-21T12-15-00Z');
  });

  it('splits 120 coin types into 3 jobs of at most 50, the same way whatever the input order', () => {
    const coins = Array.from({ length: 120 }, (_, i) => coin(i));
    const jobs = priceJobs(coins, tick);
    expect(jobs.map((job) => job.data.coinTypes.length)).toEqual([50, 50, 20]);
    const shuffled = priceJobs([...coins].reverse().concat(coins.slice(0, 5)), tick);
    expect(shuffled.map((job) => job.opts.jobId)).toEqual(jobs.map((job) => job.opts.jobId));
    expect(new Set(jobs.map((job) => job.opts.jobId)).size).toBe(3);
  });

  it('carries each address its own options', () => {
    const addresses = [
      { address: '0xaa', chain: 'sui', protocols: ['cetus'], nftChain: 'SUI', includePnl: true },
      { address: '0xbb', chain: null, protocols: null, nftChain: 'ALL', includePnl: false },
    ];
    const positions = positionJobs(addresses, tick, true);
    expect(positions[0]!.data).toEqual({
      tick: tick.toISOString(),
      address: '0xaa',
      chain: 'sui',
      protocols: ['cetus'],
      forceRefresh: true,
    });
    expect(positions[1]!.data).toEqual({ tick: tick.toISOString(), address: '0xbb', forceRefresh: true });
    const nfts = nftJobs(addresses, tick);
    expect(nfts.map((job) => job.data)).toEqual([
      { tick: tick.toISOString(), address: '0xaa', chain: 'SUI', includePnl: true },
      { tick: tick.toISOString(), address: '0xbb', chain: 'ALL', includePnl: false },
    ]);
    expect(nfts[0]!.opts.jobId).toBe('nfts-0xaa-2026-11-21T12-15-00Z');
  });

  it('plans a dataset only for the addresses watching it: an NFT-only wallet costs no positions request', () => {
    const common = { chain: null, protocols: null, nftChain: 'ALL', includePnl: false };
    const addresses = [
      { address: '0xaa', datasets: ['positions', 'nfts'] as const, ...common },
      { address: 'sol', datasets: ['nfts'] as const, ...common },
      { address: '0xcc', datasets: ['positions'] as const, ...common },
    ];
    expect(positionJobs(addresses, tick, false).map((job) => job.target)).toEqual(['0xaa', '0xcc']);
    expect(nftJobs(addresses, tick).map((job) => job.target)).toEqual(['0xaa', 'sol']);
  });
});
