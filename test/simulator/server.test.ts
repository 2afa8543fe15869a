import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  simulatedNftHoldings,
  simulatedPositions,
  simulatedProtocols,
  simulatedToken,
  simulatedTokenPrice,
  startSimulator,
  POSITION_TYPES,
  type RunningSimulator,
} from '../../src/simulator/index.ts';
import { z } from 'zod';
import {
  nativeToken,
  nftCollection,
  nftHoldingGroup,
  position,
  protocolRef,
  protocolsResponse,
  tokenPriceEntry,
} from '../../src/upstream/schemas.ts';

// The answers' schemas check only the envelope (elements are read one by one by the normalizers):
// here every element is parsed too, as the simulator must answer readable elements.
const tokenPriceResponse = z.object({ data: z.array(tokenPriceEntry) });
const positionsResponse = z.object({
  data: z.array(position.extend({ meta: z.looseObject({ protocol: protocolRef.nullish() }).nullish() })),
});
const nftHoldingsResponse = z.array(
  nftHoldingGroup.extend({ nativeToken: nativeToken.nullish(), collection: nftCollection.nullish() }),
);
import { call, json, TEST_KEY } from './simulator-requests.ts';

const NOW = Date.parse('2026-03-01T12:34:56Z');
const EPOCH_MS = 15 * 60_000;
const SUI = '0x2::sui::SUI';
const SUI_LONG = `0x${'0'.repeat(63)}2::sui::SUI`;
const ADDRESS = `0x${'ab'.repeat(32)}`;
const EVM_ADDRESS = `0x${'cd'.repeat(20)}`;
const coinType = (i: number) => `0x${(i + 1000).toString(16)}::token${i}::T${i}`;

let simulator: RunningSimulator;

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: TEST_KEY, fixedTimeMs: NOW, faultSeed: 1 });
});
afterAll(async () => {
  await simulator.close();
});

describe('authentication', () => {
  it.each([
    ['no key', null],
    ['a wrong key', 'not-the-key'],
    ['the key with a suffix', `${TEST_KEY}x`],
  ])('answers 401 with a JSON error to %s, before anything else, without echoing the key', async (_, apiKey) => {
    for (const path of ['/v2/defi/protocols', '/no/such/path', '/v2/address/not-an-address/positions']) {
      const answer = await call(simulator, path, { apiKey });
      expect(answer.status).toBe(401);
      expect(json(answer)).toMatchObject({ error: 'unauthorized' });
      if (apiKey) expect(answer.text).not.toContain(apiKey);
    }
    const price = await call(simulator, '/tokens/sui/price', { apiKey, body: { addresses: 'bad' } });
    expect(price.status).toBe(401);
  });

  it('counts the distinct keys it was sent', async () => {
    simulator.resetStats();
    await call(simulator, '/v2/defi/protocols');
    await call(simulator, '/v2/defi/protocols');
    await call(simulator, '/v2/defi/protocols', { apiKey: 'other' });
    await call(simulator, '/v2/defi/protocols', { apiKey: null });
    expect(simulator.stats()).toMatchObject({
      requests: 4,
      apiKeysSeen: 2,
      byStatus: { '200': 2, '401': 2 },
      byOperation: { protocols: 4 },
    });
  });
});

describe('POST /tokens/sui/price', () => {
  it('answers every asked token, valid against the wire schema, as predicted by simulatedTokenPrice', async () => {
    const asked = [SUI, ...Array.from({ length: 20 }, (_, i) => coinType(i))];
    const answer = await call(simulator, '/tokens/sui/price', { body: { addresses: asked.join(',') } });
    expect(answer.status).toBe(200);
    const { data } = tokenPriceResponse.parse(json(answer));
    expect(data).toHaveLength(asked.length);
    const minute = Math.floor(NOW / 60_000) * 60_000;
    data.forEach((entry, i) => {
      const token = simulatedToken(asked[i]!);
      expect(entry.contract_address).toBe(token.answeredAs);
      expect(entry.symbol).toBe(asked[i]!.split('::')[2]);
      expect(entry.timestamp).toBe(minute / 1000);
      const price = simulatedTokenPrice(asked[i]!, NOW);
      expect(entry.price === null ? null : Number(entry.price)).toBe(price);
      const dayBefore = simulatedTokenPrice(asked[i]!, minute - 86_400_000);
      expect(entry.last24hPrice === null ? null : Number(entry.last24hPrice)).toBe(dayBefore);
    });
  });

  it('answers some tokens in the short spelling and some in the 64-hex one, however they were asked', async () => {
    const asked = [SUI_LONG, ...Array.from({ length: 40 }, (_, i) => coinType(i).replace('0x', `0x${'0'.repeat(60)}`))];
    const { data } = tokenPriceResponse.parse(
      json(await call(simulator, '/tokens/sui/price', { body: { addresses: asked.join(',') } })),
    );
    expect(data[0]!.contract_address).toBe(SUI);
    const short = data.filter((entry) => entry.contract_address.length < 70);
    expect(short.length).toBeGreaterThan(5);
    expect(data.length - short.length).toBeGreaterThan(5);
  });

  it('gives numeric strings for some tokens and null prices for a few', async () => {
    const candidates = Array.from({ length: 2000 }, (_, i) => coinType(i));
    const unpriced = candidates.find((type) => !simulatedToken(type).priced)!;
    const asString = candidates.find((type) => simulatedToken(type).priced && simulatedToken(type).priceAsString)!;
    const { data } = tokenPriceResponse.parse(
      json(await call(simulator, '/tokens/sui/price', { body: { addresses: `${unpriced},${asString}` } })),
    );
    expect(data[0]!.price).toBeNull();
    expect(typeof data[1]!.price).toBe('string');
    expect(Number(data[1]!.price)).toBe(simulatedTokenPrice(asString, NOW));
  });

  it('answers a past timestamp in the unit it was asked in, on the 60 s grid', async () => {
    const past = Date.parse('2025-06-15T08:30:45Z');
    const grid = Math.floor(past / 60_000) * 60_000;
    const inSeconds = tokenPriceResponse.parse(
      json(
        await call(simulator, '/tokens/sui/price', { body: { addresses: SUI, timestamp: Math.floor(past / 1000) } }),
      ),
    );
    const inMilliseconds = tokenPriceResponse.parse(
      json(await call(simulator, '/tokens/sui/price', { body: { addresses: SUI, timestamp: past } })),
    );
    expect(inSeconds.data[0]).toMatchObject({ timestamp: grid / 1000, price: simulatedTokenPrice(SUI, past) });
    expect(inMilliseconds.data[0]).toMatchObject({ timestamp: grid, price: simulatedTokenPrice(SUI, past) });
    expect(inSeconds.data[0]!.last24hPrice).toBe(simulatedTokenPrice(SUI, grid - 86_400_000));
    expect(simulatedTokenPrice(SUI, past)).not.toBe(simulatedTokenPrice(SUI, NOW));
  });

  it('rejects more than 50 tokens, invalid coin types and bad bodies with 400 and a JSON error', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => coinType(i));
    expect((await call(simulator, '/tokens/sui/price', { body: { addresses: fifty.join(',') } })).status).toBe(200);
    for (const body of [
      { addresses: [...fifty, coinType(50)].join(',') },
      { addresses: `${SUI},not-a-coin-type` },
      { addresses: '' },
      { addresses: [SUI] },
      { addresses: SUI, timestamp: 'yesterday' },
      'not json',
    ]) {
      const answer = await call(simulator, '/tokens/sui/price', { body });
      expect(answer.status).toBe(400);
      expect(json(answer)).toMatchObject({ error: 'bad_request', message: expect.any(String) });
    }
  });
});

describe('GET /v2/address/{address}/positions', () => {
  it('answers positions valid against the wire schema, exactly as simulatedPositions predicts', async () => {
    const answer = await call(simulator, `/v2/address/${ADDRESS}/positions`);
    expect(answer.status).toBe(200);
    const body = json<{ data: unknown[] }>(answer);
    expect(positionsResponse.parse(body).data).toHaveLength(10);
    expect(body.data).toEqual(simulatedPositions(ADDRESS, NOW));
  });

  it('shows all nine variants for one address, each spelled its own way', async () => {
    const { data } = positionsResponse.parse(json(await call(simulator, `/v2/address/${ADDRESS}/positions`)));
    expect(new Set(data.map((position) => position.type))).toEqual(new Set(POSITION_TYPES));
    const byType = Object.fromEntries(data.map((position) => [position.type, position as Record<string, unknown>]));
    expect(typeof byType.liquidity_pool!.input).toBe('object');
    expect(byType.liquidity_pool).toHaveProperty('tickLower');
    expect(typeof (byType.lending_borrow!.input as { amount: unknown }[])[0]!.amount).toBe('string');
    expect(typeof (byType.lending_supply!.input as { token: unknown }[])[0]!.token).toBe('object');
    expect(typeof (byType.staking!.input as { token: unknown }[])[0]!.token).toBe('string');
    expect(byType.lending_supply!.farming).toBeNull(); // null on the wire: the normalizer reads it as none
    expect(byType.vesting).toHaveProperty('unlockAt');
    expect(byType.perp).toHaveProperty('leverage');
    expect(byType.lending_borrow).toHaveProperty('healthFactor');
    const raw = json<{ data: Record<string, unknown>[] }>(
      await call(simulator, `/v2/address/${ADDRESS}/positions`),
    ).data;
    const rawByType = Object.fromEntries(raw.map((position) => [position.type, position]));
    expect(rawByType.lending_supply).not.toHaveProperty('yieldCollected');
    expect(rawByType.lending_supply!.farming).toBeNull();
    expect(rawByType.perp).not.toHaveProperty('owner');
  });

  it('filters by chain and by protocol ids from /v2/defi/protocols', async () => {
    const all = simulatedPositions(EVM_ADDRESS, NOW, undefined, { positionsPerAddress: 60 });
    const otherChain = all.find((position) => position.chain !== 'sui')!.chain as string;
    const sim = await startSimulator({ apiKey: TEST_KEY, fixedTimeMs: NOW, world: { positionsPerAddress: 60 } });
    try {
      const byChain = positionsResponse.parse(
        json(await call(sim, `/v2/address/${EVM_ADDRESS}/positions?chain=${otherChain}`)),
      ).data;
      expect(byChain.length).toBeGreaterThan(0);
      expect(byChain.length).toBe(all.filter((position) => position.chain === otherChain).length);
      expect(byChain.every((position) => position.chain === otherChain)).toBe(true);

      const ids = [
        ...new Set(
          all.map(
            (position) => position.meta && (position.meta as { protocol: { protocol: string } }).protocol.protocol,
          ),
        ),
      ].slice(0, 2);
      const byProtocol = positionsResponse.parse(
        json(await call(sim, `/v2/address/${EVM_ADDRESS}/positions?protocol=${ids.join(',')}&force_refresh=true`)),
      ).data;
      expect(byProtocol.length).toBeGreaterThan(0);
      expect(byProtocol.every((position) => ids.includes(String(position.meta?.protocol?.protocol)))).toBe(true);
      const known = new Set(simulatedProtocols().map((protocol) => protocol.protocol));
      expect(
        all.every((position) => known.has((position.meta as { protocol: { protocol: string } }).protocol.protocol)),
      ).toBe(true);

      expect((await call(sim, `/v2/address/${EVM_ADDRESS}/positions?protocol=no-such-protocol`)).status).toBe(400);
      expect((await call(sim, `/v2/address/${EVM_ADDRESS}/positions?force_refresh=maybe`)).status).toBe(400);
    } finally {
      await sim.close();
    }
  });

  it('rejects an invalid address with 400', async () => {
    const answer = await call(simulator, '/v2/address/0x123/positions');
    expect(answer.status).toBe(400);
    expect(json(answer)).toMatchObject({ error: 'bad_request' });
  });
});

describe('GET /v2/address/{address}/nft-holding', () => {
  it('answers a top-level array valid against the wire schema, with profit only when includePnl=true', async () => {
    const without = json<Record<string, unknown>[]>(await call(simulator, `/v2/address/${ADDRESS}/nft-holding`));
    const falseAnswer = json<Record<string, unknown>[]>(
      await call(simulator, `/v2/address/${ADDRESS}/nft-holding?includePnl=false`),
    );
    const withPnl = json<Record<string, unknown>[]>(
      await call(simulator, `/v2/address/${ADDRESS}/nft-holding?chain=ALL&includePnl=true`),
    );
    expect(Array.isArray(without)).toBe(true);
    expect(nftHoldingsResponse.parse(without)).toHaveLength(5);
    expect(without.every((group) => !('profit' in group))).toBe(true);
    expect(falseAnswer).toEqual(without);
    expect(withPnl.every((group) => typeof (group.profit as { realizedPnL: unknown }).realizedPnL === 'number')).toBe(
      true,
    );
    expect(withPnl).toEqual(simulatedNftHoldings(ADDRESS, NOW, undefined, undefined, { includePnl: true }));
    for (const group of nftHoldingsResponse.parse(withPnl)) {
      expect(group.tokens).toHaveLength(3);
      expect(Object.keys(group.nativeToken!)).toEqual(['name', 'cmcId', 'cmc_slug', 'cgId', 'symbol', 'decimals']);
      expect(Object.keys(group.collection!)).toEqual([
        'description',
        'externalUrl',
        'id',
        'imageUrl',
        'name',
        'totalItems',
        'chain',
        'verified',
        'scam',
      ]);
      expect(Object.keys(group.tokens[0]!)).toEqual([
        'royalty',
        'imageUrl',
        'tokenId',
        'contractAddress',
        'name',
        'rarityScore',
        'rank',
        'price',
        'cost',
      ]);
    }
  });

  it('filters by chain and rejects an unknown chain with 400', async () => {
    const world = { collectionsPerAddress: 40 };
    const all = simulatedNftHoldings(ADDRESS, NOW, undefined, world);
    const chains = new Set(all.map((group) => (group.collection as { chain: string }).chain));
    expect(chains.size).toBeGreaterThan(3);
    const sim = await startSimulator({ apiKey: TEST_KEY, fixedTimeMs: NOW, world });
    try {
      const sui = nftHoldingsResponse.parse(json(await call(sim, `/v2/address/${ADDRESS}/nft-holding?chain=SUI`)));
      expect(sui.length).toBe(all.filter((group) => (group.collection as { chain: string }).chain === 'SUI').length);
      expect(sui.every((group) => group.collection?.chain === 'SUI' && group.nativeToken?.symbol === 'SUI')).toBe(true);
      const bad = await call(sim, `/v2/address/${ADDRESS}/nft-holding?chain=DOGE`);
      expect(bad.status).toBe(400);
      expect(json(bad)).toMatchObject({ error: 'bad_request' });
    } finally {
      await sim.close();
    }
  });
});

describe('GET /v2/defi/protocols and unknown paths', () => {
  it('lists the protocols the positions use', async () => {
    const data = protocolsResponse.parse(json(await call(simulator, '/v2/defi/protocols')));
    expect(data).toHaveLength(simulatedProtocols().length);
    expect(data[0]).toMatchObject({
      protocol: expect.any(String),
      name: expect.any(String),
      logo: expect.any(String),
      url: expect.any(String),
    });
  });

  it('answers 404 for an unknown path and 405 for a wrong method', async () => {
    const missing = await call(simulator, '/v3/anything');
    expect(missing.status).toBe(404);
    expect(json(missing)).toMatchObject({ error: 'not_found' });
    const wrongMethod = await call(simulator, '/tokens/sui/price');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });
});

describe('world time', () => {
  it('answers the same request twice with the same body while the time is fixed', async () => {
    for (const path of [`/v2/address/${ADDRESS}/positions`, `/v2/address/${ADDRESS}/nft-holding?includePnl=true`]) {
      const first = await call(simulator, path);
      const second = await call(simulator, path);
      expect(second.text).toBe(first.text);
    }
    const body = { addresses: `${SUI},${coinType(1)}` };
    expect((await call(simulator, '/tokens/sui/price', { body })).text).toBe(
      (await call(simulator, '/tokens/sui/price', { body })).text,
    );
  });

  it('closes and opens positions and trades NFTs when the clock moves by epochs', async () => {
    const sim = await startSimulator({ apiKey: TEST_KEY, fixedTimeMs: NOW });
    try {
      const before = positionsResponse.parse(json(await call(sim, `/v2/address/${ADDRESS}/positions`))).data;
      const nftsBefore = nftHoldingsResponse.parse(json(await call(sim, `/v2/address/${ADDRESS}/nft-holding`)));
      sim.setClockOffset(2 * EPOCH_MS);
      const soon = positionsResponse.parse(json(await call(sim, `/v2/address/${ADDRESS}/positions`))).data;
      sim.setClockOffset(20 * EPOCH_MS);
      const later = positionsResponse.parse(json(await call(sim, `/v2/address/${ADDRESS}/positions`))).data;
      const nftsLater = nftHoldingsResponse.parse(json(await call(sim, `/v2/address/${ADDRESS}/nft-holding`)));

      const ids = (positions: typeof before) => new Set(positions.map((position) => position.positionId));
      const kept = [...ids(soon)].filter((id) => ids(before).has(id));
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(before.length);
      expect([...ids(later)].filter((id) => ids(before).has(id))).toEqual([]);
      const tokenIds = (groups: typeof nftsBefore) =>
        groups.flatMap((group) => group.tokens.map((token) => `${group.collectionId}/${token.tokenId}`));
      expect(tokenIds(nftsLater).filter((id) => tokenIds(nftsBefore).includes(id))).toEqual([]);
      expect(later).toEqual(positionsResponse.parse({ data: simulatedPositions(ADDRESS, NOW + 20 * EPOCH_MS) }).data);
    } finally {
      await sim.close();
    }
  });
});
