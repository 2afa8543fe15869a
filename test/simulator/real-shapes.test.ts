import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSimulatorOptions } from '../../src/simulator/options.ts';
import {
  DEFAULT_WORLD,
  simulatedNftAnswer,
  simulatedPositions,
  simulatedPriceResponse,
  simulatedTokenPrice,
  startSimulator,
  type Json,
  type JsonObject,
  type RunningSimulator,
} from '../../src/simulator/index.ts';
import { call, json, TEST_KEY } from './simulator-requests.ts';

const T = Date.parse('2026-03-01T12:34:56Z');
const REAL = { realShapes: true };
const addressNo = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
const ADDRESSES = Array.from({ length: 10 }, (_, i) => addressNo(i + 1));
const positionsOf = (address: string, time = T) => simulatedPositions(address, time, undefined, REAL);
const allPositions = () => ADDRESSES.flatMap((address) => positionsOf(address));
type Entry = { amount: unknown; value: unknown; token: JsonObject };

describe('the real-shapes option', () => {
  it('is off by default, from the world, the flags and the environment', () => {
    expect(DEFAULT_WORLD.realShapes).toBe(false);
    expect(loadSimulatorOptions({}, { UPSTREAM_API_KEY: 'k' }).world?.realShapes).toBeUndefined();
    expect(loadSimulatorOptions({ realShapes: true }, { UPSTREAM_API_KEY: 'k' }).world?.realShapes).toBe(true);
    expect(loadSimulatorOptions({}, { UPSTREAM_API_KEY: 'k', SIM_REAL_SHAPES: '1' }).world?.realShapes).toBe(true);
    expect(loadSimulatorOptions({}, { UPSTREAM_API_KEY: 'k', SIM_REAL_SHAPES: 'false' }).world?.realShapes).toBe(false);
    expect(() => loadSimulatorOptions({}, { UPSTREAM_API_KEY: 'k', SIM_REAL_SHAPES: 'yes' })).toThrow(
      /SIM_REAL_SHAPES/,
    );
    const plain = simulatedPositions(ADDRESSES[0]!, T);
    expect(plain.map((position) => position.chain)).not.toContain('SUI');
  });

  it('gives the real position types, on chain SUI, with the real protocol names', () => {
    const positions = allPositions();
    expect(new Set(positions.map((position) => position.type))).toEqual(
      new Set(['AMM', 'CLMM', 'CFMM', 'Lending', 'Borrow', 'Staking', 'Vest', 'Farm', 'Reward']),
    );
    expect(new Set(positions.map((position) => position.chain))).toEqual(new Set(['SUI']));
    const names = new Set(positions.map((position) => ((position.meta as JsonObject).protocol as JsonObject).name));
    for (const name of ['Cetus', 'Scallop', 'Navi', 'Kriya', 'AftermathFinance', 'native_stake'])
      expect(names).toContain(name);
  });

  it('spells numbers as numeric strings, long decimal strings and { value }', () => {
    const positions = allPositions();
    const amounts = positions.flatMap((position) => (position.input as Entry[]).map((entry) => entry.amount));
    expect(amounts.some((amount) => typeof amount === 'string' && /^\d+\.\d+$/.test(amount))).toBe(true);
    expect(amounts.some((amount) => typeof amount === 'number')).toBe(true);
    const clmm = positions.find((position) => position.type === 'CLMM')!;
    expect(String(clmm.price).replace(/^0\.0*|\./g, '').length).toBeGreaterThanOrEqual(30);
    expect(Number(clmm.price)).toBeGreaterThan(0);
    expect(positions.some((position) => typeof (position.fee as JsonObject | null)?.value === 'number')).toBe(true);
  });

  it('lists two positions with one positionId in one answer, both kept from tick to tick', () => {
    // Values follow the prices minute by minute; the pair must stay a pair with the same ids.
    const world = { ...REAL, valuationMs: 60_000 };
    const duplicated = (time: number) => {
      const positions = simulatedPositions(ADDRESSES[0]!, time, undefined, world);
      const ids = positions.map((position) => position.positionId);
      return positions.filter((position) => ids.indexOf(position.positionId) !== ids.lastIndexOf(position.positionId));
    };
    const now = duplicated(T);
    expect(now.length).toBeGreaterThanOrEqual(2);
    expect(new Set(now.map((position) => position.type))).toEqual(new Set(['CLMM']));
    expect(now[0]!.positionId).toBe(now[1]!.positionId);
    expect(now[0]!.poolId).toBe(now[1]!.poolId);
    expect((now[0]!.input as Entry[])[0]!.amount).not.toEqual((now[1]!.input as Entry[])[0]!.amount);
    const next = duplicated(T + 60_000);
    expect(next.map((position) => position.positionId)).toEqual(now.map((position) => position.positionId));
    expect(next.map((position) => (position.input as Entry[])[0]!.amount)).toEqual(
      now.map((position) => (position.input as Entry[])[0]!.amount),
    );
    expect(JSON.stringify(next)).not.toBe(JSON.stringify(now));
  });

  it('nests a whole Lending position in the input of a Borrow', () => {
    const borrow = allPositions().find((position) => position.type === 'Borrow')!;
    const [collateral] = borrow.input as JsonObject[];
    expect(borrow.input).toHaveLength(1);
    expect(collateral).toMatchObject({ type: 'Lending', chain: 'SUI' });
    expect(Object.keys(collateral!)).toEqual(expect.arrayContaining(['positionId', 'input', 'current', 'fee', 'meta']));
    expect((collateral!.input as Entry[])[0]!.amount).toEqual(expect.any(Number));
  });

  it('adds fields the document does not name and leaves out some it names', () => {
    const positions = allPositions();
    // A Borrow carries its health factor in current.healthy (upstream-reality.md), here as a numeric string.
    for (const borrow of positions.filter((position) => position.type === 'Borrow')) {
      expect((borrow.current as JsonObject).healthy).toMatch(/^\d+(\.\d+)?$/);
    }
    expect(positions.some((position) => position.type === 'Borrow')).toBe(true);
    const token = (positions[0]!.input as Entry[])[0]!.token;
    expect(Object.keys(token)).toEqual(
      expect.arrayContaining(['name', 'logo', 'chain', 'timestamp', 'decimals', 'source']),
    );
    const lpToken = (positions.find((position) => position.type === 'CLMM')!.input as Entry[])[0]!.token;
    expect(lpToken.poolId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(positions.some((position) => !('farming' in position))).toBe(true);
    expect(positions.some((position) => !('yieldCollected' in position))).toBe(true);
    const tokens = [
      '0x2::sui::SUI',
      ...Array.from({ length: 20 }, (_, i) => `0x${(i + 1000).toString(16)}::token${i}::T${i}`),
    ];
    const { data } = simulatedPriceResponse({ addresses: tokens.join(',') }, T, undefined, true);
    expect(data.some((entry) => !('last24hPrice' in entry))).toBe(true);
    expect(data.some((entry) => 'last24hPrice' in entry)).toBe(true);
    const plain = simulatedPriceResponse({ addresses: tokens.join(',') }, T);
    expect(plain.data.every((entry) => 'last24hPrice' in entry)).toBe(true);
  });

  it('wraps the NFT answer in { data } for some addresses, with marketPrice the native token in USD', () => {
    const answers = ADDRESSES.map((address) =>
      simulatedNftAnswer(address, T, undefined, { ...REAL, collectionsPerAddress: 20 }),
    );
    expect(answers.some(Array.isArray)).toBe(true);
    expect(answers.some((answer) => !Array.isArray(answer) && Array.isArray((answer as JsonObject).data))).toBe(true);
    const groups = answers.flatMap((answer) =>
      Array.isArray(answer) ? answer : (answer as { data: Json[] }).data,
    ) as JsonObject[];
    const byChain = new Map<string, Set<unknown>>();
    for (const group of groups) {
      const chain = String((group.collection as JsonObject).chain);
      byChain.set(chain, (byChain.get(chain) ?? new Set()).add(group.marketPrice));
    }
    for (const prices of byChain.values()) expect(prices.size).toBe(1);
    expect([...byChain.get('SUI')!][0]).toBe(simulatedTokenPrice('0x2::sui::SUI', Math.floor(T / 900_000) * 900_000));
    expect(Array.isArray(simulatedNftAnswer(ADDRESSES[0]!, T, undefined, { collectionsPerAddress: 20 }))).toBe(true);
  });

  it('answers the same request twice with the same body', () => {
    for (const address of ADDRESSES) {
      expect(JSON.stringify(positionsOf(address))).toBe(JSON.stringify(positionsOf(address)));
      expect(JSON.stringify(simulatedNftAnswer(address, T, undefined, REAL))).toBe(
        JSON.stringify(simulatedNftAnswer(address, T, undefined, REAL)),
      );
    }
  });

  describe('over HTTP', () => {
    let simulator: RunningSimulator;
    beforeAll(async () => {
      simulator = await startSimulator({ apiKey: TEST_KEY, fixedTimeMs: T, faultSeed: 1, world: REAL });
    });
    afterAll(async () => {
      await simulator.close();
    });

    it('answers errors with an error string, 403 to a key it does not accept, 401 to none', async () => {
      const wrong = await call(simulator, '/v2/defi/protocols', { apiKey: 'wrong' });
      expect(wrong.status).toBe(403);
      expect(json(wrong)).toEqual({ error: 'Forbidden' });
      const none = await call(simulator, '/v2/defi/protocols', { apiKey: null });
      expect(none.status).toBe(401);
      expect(json(none)).toEqual({ error: expect.any(String) });
      simulator.setFaults({ error429Rate: 1 });
      const limited = await call(simulator, '/v2/defi/protocols');
      simulator.setFaults({ error429Rate: 0 });
      expect(limited.status).toBe(429);
      expect(json(limited)).toEqual({ error: expect.any(String) });
      const bad = await call(simulator, '/v2/address/not-an-address/positions');
      expect(bad.status).toBe(400);
      expect(Object.keys(json<JsonObject>(bad))).toEqual(['error']);
    });

    it('serves the real shapes, the same body for the same request', async () => {
      const path = `/v2/address/${ADDRESSES[0]}/positions`;
      const [first, second] = [await call(simulator, path), await call(simulator, path)];
      expect(first.text).toBe(second.text);
      expect(json(first)).toEqual({ data: positionsOf(ADDRESSES[0]!) });
      const nfts = await call(simulator, `/v2/address/${ADDRESSES[0]}/nft-holding`);
      expect(json(nfts)).toEqual(simulatedNftAnswer(ADDRESSES[0]!, T, undefined, REAL));
    });
  });
});
