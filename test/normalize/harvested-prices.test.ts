import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeNftHoldings, normalizePositions } from '../../src/normalize/index.ts';
import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import { tokenId } from '../../src/chain/token-id.ts';
import { nftHoldingsResponse, positionsResponse } from '../../src/upstream/schemas.ts';

const fixture = (path: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8'));
const SUI = normalizeCoinType('0x2::sui::SUI');
const TICK = new Date('2026-11-21T12:00:00Z');
const FETCHED = new Date('2026-11-21T12:00:04Z');
const positions = (body: unknown, ctx = { snapshotAt: TICK, fetchedAt: FETCHED }) =>
  normalizePositions(positionsResponse.parse(body), { owner: '0xowner', ...ctx });
/** The harvested prices as (chain, token, time, price, 24h ago, source), sorted. */
const points = (rows: ReturnType<typeof positions>['harvested']) =>
  rows.prices
    .map((p) => [p.chain, p.coinType, p.priceTime.toISOString(), p.price, p.price24hAgo, p.source, p.origin])
    .sort((a, b) => a.join().localeCompare(b.join()));

/**
 * Every priced token object of an answer, found another way than the normalizer: any object, at any
 * depth, with a `price`, a `timestamp` and an address. The prices each (token, time) is carried at.
 */
function pricedTokenObjects(body: unknown): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const walk = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== 'object' || value === null) return;
    const object = value as Record<string, unknown>;
    const address = object.contract_address ?? object.address;
    if (typeof address === 'string' && object.price != null && typeof object.timestamp === 'number') {
      const key = `${tokenId(address)} ${new Date(object.timestamp * 1000).toISOString()}`;
      found.set(key, (found.get(key) ?? new Set()).add(String(object.price)));
    }
    Object.values(object).forEach(walk);
  };
  walk(body);
  return found;
}

describe('prices harvested from positions answers', () => {
  it('a SUI wallet (real-shape answer, every position type): every priced token object, each token and time once', () => {
    const body = fixture('real-answers/positions-all-types.json');
    // The simulator's world time of the fixture (its README), its token timestamps a few minutes before.
    const rows = positions(body, {
      snapshotAt: new Date('2026-03-01T12:30:00Z'),
      fetchedAt: new Date('2026-03-01T12:34:56Z'),
    });
    const carried = pricedTokenObjects(body);
    const harvested = new Map(
      rows.harvested.prices.map((p) => [`${p.coinType} ${p.priceTime.toISOString()}`, p.price]),
    );
    // Each token and time once (the simulator's token objects carry value / amount, so one token's
    // figure differs in the last digit between positions: the first one is kept).
    expect([...harvested.keys()].sort()).toEqual([...carried.keys()].sort());
    for (const [key, price] of harvested) expect(carried.get(key)).toContain(price);
    expect(harvested.size).toBeGreaterThan(3);
    expect(new Set(rows.harvested.prices.map((p) => `${p.chain} ${p.origin} ${p.source}`))).toEqual(
      new Set(['sui positions simulated']),
    );
    expect(rows.harvested.prices.find((p) => p.coinType === SUI)).toBeDefined();
    expect(rows.quarantined).toEqual([]);
  });

  it('an EVM wallet: one point per token and time across positions, a nested collateral included, the same address on two chains two tokens', () => {
    const rows = positions(fixture('harvested-prices/positions-evm.json'));
    const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
    const weth = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
    const dai = '0xda10009cbd5d07dd0cecc66161fc93d7c9000da1';
    expect(points(rows.harvested)).toEqual([
      ['arbitrum', dai, '2026-11-21T12:00:00.000Z', '1.0002', '0.9999', 'coingecko', 'positions'],
      ['ethereum', usdc, '2026-11-21T12:00:00.000Z', '0.99987', '1.0001', 'coingecko', 'positions'],
      // The first carrier's figure (the nested collateral's token object has no last24hPrice).
      ['ethereum', weth, '2026-11-21T11:59:00.000Z', '3401.66853342', '3388.1', 'uniswap', 'positions'],
      // No chain on the token object: its position's (OP).
      ['optimism', dai, '2026-11-21T12:00:00.000Z', '0.9998', null, 'coingecko', 'positions'],
    ]);
    expect(rows.harvested.tokens.map((t) => [t.chain, t.coinType, t.symbol, t.decimals]).sort()).toEqual([
      ['arbitrum', dai, 'DAI', 18],
      ['ethereum', usdc, 'USDC', 6],
      ['ethereum', weth, 'WETH', 18],
      ['optimism', dai, 'DAI', 18],
    ]);
    expect(rows.positions).toHaveLength(6);
  });

  it('a Solana wallet: mints as given, a numeric-string price read, a token object without a price no point', () => {
    const rows = positions(fixture('harvested-prices/positions-solana.json'));
    expect(points(rows.harvested)).toEqual([
      [
        'solana',
        'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        '2026-11-21T12:00:00.000Z',
        '0.9999',
        '1',
        'birdeye',
        'positions',
      ],
      [
        'solana',
        'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN',
        '2026-11-21T11:59:30.000Z',
        '0.87',
        null,
        'jupiter',
        'positions',
      ],
      [
        'solana',
        'So11111111111111111111111111111111111111112',
        '2026-11-21T12:00:00.000Z',
        '182.4467953',
        '179.02',
        'birdeye',
        'positions',
      ],
    ]);
    expect(rows.drifts).toContainEqual({ field: 'positions.token.price', shape: 'numeric_string', count: 1 });
  });

  it('a price that cannot be true is no point and counts as drift; its position is stored as ever', () => {
    const token = (price: unknown, timestamp: unknown, address = '0x2::sui::SUI') => ({
      amount: 1,
      value: 1,
      token: { contract_address: address, symbol: 'X', price, timestamp, chain: 'SUI' },
    });
    const seconds = (date: Date) => date.getTime() / 1000;
    const body = {
      data: [
        {
          positionId: 'p',
          chain: 'SUI',
          type: 'Lending',
          input: [
            token(-3, seconds(TICK), '0x3::a::A'),
            token(1e308, seconds(TICK), '0x4::b::B'),
            token(0, seconds(TICK), '0x5::c::C'),
            token(2, Date.parse('1990-01-01T00:00:00Z') / 1000, '0x6::d::D'),
            token(2, seconds(TICK) + 23 * 3600, '0x7::e::E'),
            token(3.25, seconds(TICK)),
          ],
          current: { tokens: [], yield: [] },
        },
      ],
    };
    const rows = positions(body);
    expect(points(rows.harvested)).toEqual([['sui', SUI, TICK.toISOString(), '3.25', null, null, 'positions']]);
    expect(rows.harvested.tokens.map((t) => t.coinType)).toEqual([SUI]);
    expect(rows.drifts).toEqual(
      expect.arrayContaining([
        { field: 'positions.token.price', shape: 'implausible', count: 3 },
        { field: 'positions.token.timestamp', shape: 'implausible', count: 2 },
      ]),
    );
    expect(rows.quarantined).toEqual([]);
    expect(rows.positions.map((p) => p.positionId)).toEqual(['p']);
    expect(rows.amounts).toHaveLength(6);
  });
});

describe('prices harvested from NFT answers', () => {
  it("each group's marketPrice is its chain's native token at the tick, once per chain; SUI's is the SUI coin type", () => {
    const rows = normalizeNftHoldings(nftHoldingsResponse.parse(fixture('real-answers/nfts-data-wrapped.json')), {
      owner: '0xowner',
      snapshotAt: TICK,
      fetchedAt: FETCHED,
    });
    expect(points(rows.harvested)).toEqual([
      ['bitcoin', 'native', TICK.toISOString(), '71668.79098', null, null, 'nfts'],
      ['ethereum', 'native', TICK.toISOString(), '3401.66853342', null, null, 'nfts'],
      ['solana', 'native', TICK.toISOString(), '182.4467953', null, null, 'nfts'],
      ['sui', SUI, TICK.toISOString(), '2.64760333704', null, null, 'nfts'],
    ]);
    expect(rows.harvested.tokens.map((t) => [t.chain, t.symbol, t.decimals]).sort()).toEqual([
      ['bitcoin', 'BTC', 8],
      ['ethereum', 'ETH', 18],
      ['solana', 'SOL', 9],
      ['sui', 'SUI', 9],
    ]);
  });

  it('a marketPrice that cannot be true is no point, and counts as drift', () => {
    const group = (collectionId: string, marketPrice: unknown) => ({
      collectionId,
      collection: { chain: 'SOL', name: collectionId },
      nativeToken: { symbol: 'SOL', decimals: 9 },
      tokens: [],
      floorPrice: 1,
      marketPrice,
    });
    const rows = normalizeNftHoldings(nftHoldingsResponse.parse([group('a', -1), group('b', 1e308)]), {
      owner: '0xowner',
      snapshotAt: TICK,
      fetchedAt: FETCHED,
    });
    expect(rows.harvested.prices).toEqual([]);
    expect(rows.holdings).toHaveLength(2);
    expect(rows.drifts).toContainEqual({ field: 'nfts.marketPrice', shape: 'implausible', count: 2 });
  });
});
