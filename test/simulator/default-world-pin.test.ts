import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  simulatedNftHoldings,
  simulatedPositions,
  simulatedPriceResponse,
  simulatedProtocolsResponse,
  startSimulator,
  type RunningSimulator,
} from '../../src/simulator/index.ts';
import { call, TEST_KEY } from './simulator-requests.ts';

/**
 * The default world's answers, pinned by digest: end-to-end tests and golden fixtures depend on them
 * byte for byte, so a change to the world (such as the real-shapes option) must leave them alone.
 * The digests were computed before the real-shapes option existed; those with NFT answers were pinned
 * again when every world's `marketPrice` became the native token's USD price (only that field changed).
 * Positions were pinned again when they came to make sense to a reader (issue 30): a borrow pledges
 * collateral worth more than its debt, liquid staking tokens are priced from their native token, a
 * perp's PnL is bounded and LP fees are lower; only those four variants changed.
 */
const T = Date.parse('2026-03-01T12:34:56Z');
const addressNo = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
const digest = (value: unknown) =>
  createHash('sha256')
    .update(typeof value === 'string' ? value : JSON.stringify(value))
    .digest('hex');
const SUI = '0x2::sui::SUI';
const tokens = [SUI, ...Array.from({ length: 30 }, (_, i) => `0x${(i + 1000).toString(16)}::token${i}::T${i}`)];

describe('the default world (real shapes off)', () => {
  it('answers positions, NFT holdings, prices and protocols exactly as before', () => {
    const positions = Array.from({ length: 12 }, (_, i) => simulatedPositions(addressNo(i), T + i * 3_600_000));
    const nfts = Array.from({ length: 12 }, (_, i) =>
      simulatedNftHoldings(addressNo(i), T + i * 3_600_000, undefined, undefined, { includePnl: i % 2 === 0 }),
    );
    const prices = simulatedPriceResponse({ addresses: tokens.join(','), timestamp: 1_772_000_000 }, T);
    expect({
      positions: digest(positions),
      nfts: digest(nfts),
      prices: digest(prices),
      protocols: digest(simulatedProtocolsResponse()),
    }).toEqual(PINNED);
  });

  describe('over HTTP', () => {
    let simulator: RunningSimulator;
    beforeAll(async () => {
      simulator = await startSimulator({ apiKey: TEST_KEY, fixedTimeMs: T, faultSeed: 1 });
    });
    afterAll(async () => {
      await simulator.close();
    });

    it('answers the operations and the errors exactly as before', async () => {
      const bodies: string[] = [];
      for (const path of [
        `/v2/address/${addressNo(7)}/positions`,
        `/v2/address/${addressNo(7)}/nft-holding?includePnl=true`,
        '/v2/address/not-an-address/positions',
        '/no/such/path',
      ]) {
        const answer = await call(simulator, path);
        bodies.push(`${answer.status} ${answer.text}`);
      }
      const wrongKey = await call(simulator, '/v2/defi/protocols', { apiKey: 'wrong' });
      bodies.push(`${wrongKey.status} ${wrongKey.text}`);
      simulator.setFaults({ error429Rate: 1 });
      const limited = await call(simulator, '/v2/defi/protocols');
      bodies.push(`${limited.status} ${limited.text}`);
      simulator.setFaults({ error429Rate: 0 });
      expect(digest(bodies.join('\n'))).toBe(PINNED_HTTP);
    });
  });
});

const PINNED = {
  positions: 'e75ad8765cc107cb58ae2bde7c2b5b365cf8a5f040cd5f3dd40cd707c78b7db1',
  nfts: '4817bce53eef7638c38f4241d48f865df5f70131d2db5154941fb3fe4ff6c768',
  prices: '06d7bc30ff25634e013133e40893e84719764ffa0a442e06bf95a678d2ddf06a',
  protocols: '27a63ab0ef0b0d53595274a84598421415572c0e1f6035411c15eb39516ef59f',
};
// Pinned again when the error for an invalid address came to name every address format (issue 23):
// only that 400 body changed; and with the positions (issue 30).
const PINNED_HTTP = '16df69a29fec81992c59b4d2554b668927adf02a50a66be14afeda7821c307ac';
