import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import {
  POSITION_TYPES,
  priceRequestTime,
  simulatedNftHoldings,
  simulatedPositions,
  simulatedPriceResponse,
  simulatedToken,
  simulatedTokenPrice,
} from '../../src/simulator/index.ts';
import { nftHoldingsResponse, positionsResponse } from '../../src/upstream/schemas.ts';

const T = Date.parse('2026-03-01T12:00:00Z');
const EPOCH_MS = 15 * 60_000;
const SUI = '0x2::sui::SUI';
const USDC = '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC';
const addressNo = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;

describe('simulated token prices', () => {
  it('are constant within a grid minute and move a little from minute to minute', () => {
    const minute = Math.floor(T / 60_000) * 60_000;
    expect(simulatedTokenPrice(SUI, minute)).toBe(simulatedTokenPrice(SUI, minute + 59_999));
    for (let i = 0; i < 100; i++) {
      const a = simulatedTokenPrice(SUI, minute + i * 60_000)!;
      const b = simulatedTokenPrice(SUI, minute + (i + 1) * 60_000)!;
      expect(Math.abs(b / a - 1)).toBeLessThan(0.02);
    }
  });

  it('exist for any past time and depend on the seed', () => {
    const past = Date.parse('2019-01-01T00:00:00Z');
    expect(simulatedTokenPrice(SUI, past)).toBeGreaterThan(0);
    expect(simulatedTokenPrice(SUI, T, 'other-seed')).not.toBe(simulatedTokenPrice(SUI, T));
    expect(simulatedTokenPrice(USDC, T)).toBeGreaterThan(0.9);
    expect(simulatedTokenPrice(USDC, T)).toBeLessThan(1.1);
  });

  it('give one token, however spelled, the same price and metadata', () => {
    const long = `0x${'0'.repeat(63)}2::sui::SUI`;
    expect(simulatedTokenPrice(long, T)).toBe(simulatedTokenPrice(SUI, T));
    expect(simulatedToken(long)).toEqual(simulatedToken(SUI));
    expect(simulatedToken(SUI)).toMatchObject({ symbol: 'SUI', decimals: 9, answeredAs: SUI, priced: true });
    expect(simulatedToken('0xabc::pool::LP<0x2::sui::SUI>').symbol).toBe('LP');
  });

  it('read a request timestamp by magnitude', () => {
    expect(priceRequestTime(1_700_000_000, T)).toEqual({ timeMs: 1_700_000_000_000, unit: 'seconds' });
    expect(priceRequestTime(1_700_000_000_123, T)).toEqual({ timeMs: 1_700_000_000_123, unit: 'milliseconds' });
    expect(priceRequestTime(undefined, T)).toEqual({ timeMs: T, unit: 'seconds' });
    expect(() => priceRequestTime(1.5, T)).toThrow(InvalidInputError);
    expect(() => priceRequestTime(1e16, T)).toThrow(InvalidInputError);
  });

  it('answer one entry per distinct token', () => {
    const { data } = simulatedPriceResponse({ addresses: `${SUI}, 0x02::sui::SUI ,${USDC}` }, T);
    expect(data.map((entry) => entry.symbol)).toEqual(['SUI', 'USDC']);
  });
});

describe('simulated positions', () => {
  it('are constant within an epoch and keep their slot count', () => {
    const start = Math.floor(T / EPOCH_MS) * EPOCH_MS;
    expect(simulatedPositions(addressNo(1), start)).toEqual(simulatedPositions(addressNo(1), start + EPOCH_MS - 1));
    expect(simulatedPositions(addressNo(1), T, undefined, { positionsPerAddress: 25 })).toHaveLength(25);
  });

  it('with a valuation step, keep their ids within the epoch while their values follow the prices', () => {
    const world = { epochMs: 86_400_000, valuationMs: 15 * 60_000 };
    const day = Math.floor(T / world.epochMs) * world.epochMs;
    const at = (ms: number) => simulatedPositions(addressNo(1), ms, undefined, world);
    const ids = (positions: ReturnType<typeof at>) => positions.map((position) => position.positionId);
    expect(ids(at(day + 3_600_000))).toEqual(ids(at(day)));
    expect(at(day + world.valuationMs - 1)).toEqual(at(day));
    expect(JSON.stringify(at(day + world.valuationMs))).not.toBe(JSON.stringify(at(day)));
    const nfts = (ms: number) => simulatedNftHoldings(addressNo(1), ms, undefined, world);
    expect(nfts(day + 3_600_000).map((group) => group.collectionId)).toEqual(
      nfts(day).map((group) => group.collectionId),
    );
    expect(nfts(day + 3_600_000).map((group) => group.floorPrice)).not.toEqual(
      nfts(day).map((group) => group.floorPrice),
    );
  });

  it('show all nine variants for every address with nine or more slots', () => {
    for (let i = 0; i < 20; i++) {
      expect(
        new Set(
          simulatedPositions(addressNo(i), T, undefined, { positionsPerAddress: 9 }).map((position) => position.type),
        ),
      ).toEqual(new Set(POSITION_TYPES));
    }
  });

  it('live between 2 and 8 epochs each', () => {
    const seen = new Map<string, { first: number; last: number }>();
    const epochs = 60;
    for (let epoch = 0; epoch < epochs; epoch++) {
      for (const position of simulatedPositions(addressNo(3), T + epoch * EPOCH_MS)) {
        const id = String(position.positionId);
        seen.set(id, { first: seen.get(id)?.first ?? epoch, last: epoch });
      }
    }
    // Only positions opened and closed inside the observed epochs have a known lifetime.
    const lifetimes = [...seen.values()]
      .filter(({ first, last }) => first > 0 && last < epochs - 1)
      .map(({ first, last }) => last - first + 1);
    expect(lifetimes.length).toBeGreaterThan(50);
    expect(Math.min(...lifetimes)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...lifetimes)).toBeLessThanOrEqual(8);
  });

  it('are mostly on sui, some on ethereum and arbitrum', () => {
    const chains = new Map<string, number>();
    for (let i = 0; i < 50; i++) {
      for (const position of simulatedPositions(addressNo(i), T))
        chains.set(String(position.chain), (chains.get(String(position.chain)) ?? 0) + 1);
    }
    expect(chains.get('sui')).toBeGreaterThan(300);
    expect(chains.get('ethereum')).toBeGreaterThan(10);
    expect(chains.get('arbitrum')).toBeGreaterThan(10);
  });

  it('reject an invalid address and an unknown protocol', () => {
    expect(() => simulatedPositions('0x12', T)).toThrow(InvalidInputError);
    expect(() => simulatedPositions(addressNo(1), T, undefined, undefined, { protocols: ['nope'] })).toThrow(
      /unknown protocol/,
    );
  });
});

describe('simulated NFT holdings', () => {
  it('hold distinct collections with distinct tokens, sized by the world', () => {
    const groups = simulatedNftHoldings(addressNo(5), T, undefined, {
      collectionsPerAddress: 30,
      tokensPerCollection: 7,
    });
    expect(groups).toHaveLength(30);
    expect(new Set(groups.map((group) => group.collectionId)).size).toBe(30);
    for (const group of groups) {
      const tokens = group.tokens as { tokenId: string }[];
      expect(tokens).toHaveLength(7);
      expect(new Set(tokens.map((token) => token.tokenId)).size).toBe(7);
    }
  });

  it('share collections between addresses', () => {
    const ids = (i: number) =>
      simulatedNftHoldings(addressNo(i), T, undefined, { collectionsPerAddress: 40 }).map(
        (group) => group.collectionId,
      );
    const first = new Set(ids(1));
    expect(ids(2).some((id) => first.has(id))).toBe(true);
  });
});

describe('every simulated answer', () => {
  it('validates against the wire schemas, for many addresses and epochs', () => {
    for (let i = 0; i < 200; i++) {
      const time = T + i * 7 * EPOCH_MS;
      expect(positionsResponse.safeParse({ data: simulatedPositions(addressNo(i), time) }).success).toBe(true);
      expect(
        nftHoldingsResponse.safeParse(
          simulatedNftHoldings(addressNo(i), time, undefined, undefined, { includePnl: true }),
        ).success,
      ).toBe(true);
    }
  });
});
