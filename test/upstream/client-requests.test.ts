import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import { loadOptions, type OptionsInput } from '../../src/config/options.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { createUpstreamClient, transportSettings, type UpstreamClient } from '../../src/upstream/client.ts';
import { createHttpTransport } from '../../src/upstream/http-transport.ts';
import { createSharedRateLimiter, type RateLimiter } from '../../src/upstream/rate-limiter.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { json, startFaultServer, text, type Answer, type FaultServer } from './fault-server.ts';
import { coin } from '../support/coins.ts';

/**
 * What the client sends (paths, query strings, bodies, batches) and which odd but valid answers it
 * accepts, checked at a real HTTP server that records every request and answers scripted bodies.
 */
const API_KEY = 'test-key-requests-0001';
const address64 = `0x${'ab'.repeat(32)}`;

describe('upstream client requests', () => {
  let server: FaultServer;
  let client: UpstreamClient;
  let testRedis: TestRedis;
  let redis: Redis;
  let budgets = 0;
  /** A request budget of its own on the test Redis, as the commands have. */
  const budget = (rps: number) =>
    createSharedRateLimiter({ redis, key: `${testRedis.prefix}:upstream:pace:${++budgets}`, rps });
  const makeClient = (
    overrides: Partial<Record<keyof OptionsInput, string | number>> = {},
    rateLimiter: RateLimiter = budget(1000),
  ) => {
    const options = loadOptions({ UPSTREAM_BASE_URL: server.url, UPSTREAM_API_KEY: API_KEY, ...overrides }, {});
    return createUpstreamClient({
      options,
      logger: createLogger({ level: 'silent', pretty: false }),
      metrics: createMetrics({ defaultMetrics: false }),
      transport: createHttpTransport(transportSettings(options), rateLimiter),
    });
  };

  beforeAll(async () => {
    server = await startFaultServer();
    testRedis = createTestRedis();
    redis = new Redis(testRedis.url);
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.script();
    server.fallback(json(200, { data: [] }));
    client = makeClient();
  });
  afterEach(() => client.close());
  afterAll(async () => {
    await server.close();
    redis.disconnect();
    await testRedis.cleanup();
  });

  const sentCoinTypes = () =>
    server.requests.map((request) => (JSON.parse(request.body) as { addresses: string }).addresses.split(','));

  describe('prices', () => {
    it('sends a batch in normal form, duplicates in another spelling once', async () => {
      const coinTypes = Array.from({ length: 40 }, (_, i) => coin(i + 1));
      // The same types again in their short, upper-case spelling.
      const respelled = coinTypes
        .slice(0, 30)
        .map((type) =>
          type.replace(/^0x0*/, '0x').replace(/^0x([0-9a-f]+)/, (_, hex: string) => `0x${hex.toUpperCase()}`),
        );
      await client.fetchTokenPriceBatch([...coinTypes, ...respelled, '0x2::sui::SUI', '0x0002::sui::SUI']);
      expect(server.requests).toHaveLength(1);
      const [sent] = sentCoinTypes();
      expect(sent).toHaveLength(41);
      expect(new Set(sent).size).toBe(41);
      expect(sent).toContain(`0x${'0'.repeat(63)}2::sui::SUI`);
      expect(sent).toContain(coin(1));
      expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/tokens/sui/price' });
      expect(server.requests[0]!.headers['content-type']).toBe('application/json');
      expect(JSON.parse(server.requests[0]!.body)).not.toHaveProperty('timestamp');
    });

    it('sends the requested time in the configured unit', async () => {
      const at = new Date('2025-03-01T12:00:00.750Z');
      await client.fetchTokenPriceBatch(['0x2::sui::SUI'], { at });
      expect(JSON.parse(server.requests[0]!.body)).toEqual({
        addresses: `0x${'0'.repeat(63)}2::sui::SUI`,
        timestamp: 1740830400,
      });
      const millisClient = makeClient({ UPSTREAM_TIMESTAMP_UNIT: 'milliseconds' });
      await millisClient.fetchTokenPriceBatch(['0x2::sui::SUI'], { at });
      await millisClient.close();
      expect(JSON.parse(server.requests[1]!.body)).toMatchObject({ timestamp: 1740830400750 });
    });

    it('rejects bad coin types before any request, with a clear message', async () => {
      const good = Array.from({ length: 60 }, (_, i) => coin(i + 1));
      await expect(client.fetchTokenPriceBatch([...good.slice(0, 10), '0x2::sui'])).rejects.toThrow(
        /invalid coin type "0x2::sui": expected address::module::Name/,
      );
      await expect(
        client.fetchTokenPriceBatch([...good.slice(0, 10), '0xabc::lp::LP<0x2::sui::SUI,0x3::x::X>']),
      ).rejects.toThrow(/contains a comma/);
      await expect(client.fetchTokenPriceBatch(['sui'])).rejects.toBeInstanceOf(InvalidInputError);
      await expect(client.fetchTokenPriceBatch([])).rejects.toThrow(/1 to 50 distinct coin types, got 0/);
      await expect(client.fetchTokenPriceBatch(good)).rejects.toThrow(/1 to 50 distinct coin types, got 60/);
      await expect(client.fetchTokenPriceBatch(good.slice(0, 10), { at: new Date('nope') })).rejects.toThrow(
        /invalid price time/,
      );
      expect(server.requests).toHaveLength(0);
    });

    it('returns the body as received and the validated data', async () => {
      const body = `{"data":[{"contract_address":"0x2::sui::SUI","symbol":"SUI","price":"3.1415","last24hPrice":3,"timestamp":"1740830400000","decimals":"9","source":"agg","extra":{"a":1}}]}`;
      server.fallback(text(200, body));
      const response = await client.fetchTokenPriceBatch(['0x2::sui::SUI']);
      expect(response).toMatchObject({ operation: 'prices', url: '/tokens/sui/price', status: 200, body, attempts: 1 });
      expect(response.receivedAt).toBeInstanceOf(Date);
      expect(response.durationMs).toBeGreaterThanOrEqual(0);
      expect(response.data.data[0]).toEqual({
        contract_address: '0x2::sui::SUI',
        symbol: 'SUI',
        price: '3.1415',
        last24hPrice: 3,
        timestamp: '1740830400000',
        decimals: '9',
        source: 'agg',
        extra: { a: 1 },
      });
    });
  });

  describe('positions, NFTs and protocols', () => {
    it('builds the positions path and query, URL-encoded', async () => {
      await client.fetchPositions(address64.toUpperCase().replace('0X', '0x'), {
        chain: 'sui',
        protocols: ['cetus', 'navi protocol', 'a&b'],
        forceRefresh: true,
      });
      await client.fetchPositions(address64);
      expect(server.requests.map((request) => [request.method, request.url])).toEqual([
        ['GET', `/v2/address/${address64}/positions?chain=sui&protocol=cetus,navi%20protocol,a%26b&force_refresh=true`],
        ['GET', `/v2/address/${address64}/positions`],
      ]);
      await expect(client.fetchPositions(address64, { protocols: ['a,b'] })).rejects.toThrow(/invalid protocol "a,b"/);
      await expect(client.fetchPositions('0x12/../../x')).rejects.toBeInstanceOf(InvalidInputError);
      await expect(client.fetchPositions(address64, { chain: 'sui&x=1' })).rejects.toBeInstanceOf(InvalidInputError);
      expect(server.requests).toHaveLength(2);
    });

    it('builds the NFT path and query', async () => {
      server.fallback(json(200, []));
      const base58 = 'DRpbCBMxVnDK7maPM5tGv6MvB3v1sRMC86PZ8okm21hy';
      await client.fetchNftHoldings(base58, { chain: 'SOL', includePnl: true });
      await client.fetchNftHoldings(address64, { includePnl: false });
      expect(server.requests.map((request) => request.url)).toEqual([
        `/v2/address/${base58}/nft-holding?chain=SOL&includePnl=true`,
        `/v2/address/${address64}/nft-holding`,
      ]);
      await expect(client.fetchNftHoldings(address64, { chain: 'DOGE' as never })).rejects.toThrow(/unknown NFT chain/);
    });

    it('asks for the protocols', async () => {
      server.fallback(json(200, ['cetus', { id: 'navi', name: 'NAVI' }]));
      const response = await client.fetchProtocols();
      expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/v2/defi/protocols' });
      expect(response.data).toEqual(['cetus', { id: 'navi', name: 'NAVI' }]);
    });

    it('checks only the envelope of a positions answer: its elements come as received, for the normalizer', async () => {
      const odd = {
        data: [
          {
            positionId: 12345,
            owner: address64,
            input: [{ amount: '1000000000', value: '12.5', token: { address: '0x2::sui::SUI', symbol: 'SUI' } }],
            current: { tokens: [{ amount: 1.5, value: 3, token: '0x2::sui::SUI' }] },
            fee: '0.003',
            chain: 'sui',
            type: 'liquidity',
            farming: null,
            meta: { protocol: { name: 'Cetus', protocol: 'cetus' } },
            tickLower: -443580,
          },
        ],
        page: { next: null },
      };
      server.fallback(json(200, odd));
      const { data } = await client.fetchPositions(address64);
      expect(data.data).toEqual(odd.data);
      expect(data).toMatchObject({ page: { next: null } });
    });

    it('accepts NFT holdings wrapped in { data: [...] }; a missing or null data list fails the envelope', async () => {
      const group = {
        collectionId: 'c1',
        tokens: [{ tokenId: 7, price: '1.2' }],
        floorPrice: '0.5',
        profit: null,
        rarity: 'x',
      };
      const answers: Answer[] = [json(200, { data: [group] }), json(200, [group]), json(200, { data: null })];
      server.script(...answers);
      const wrapped = await client.fetchNftHoldings(address64);
      const bare = await client.fetchNftHoldings(address64);
      expect(wrapped.data).toEqual(bare.data);
      expect(wrapped.data).toEqual([group]);
      // Only a list says what an address holds (issue 24): the answer is quarantined, not read as empty.
      await expect(client.fetchNftHoldings(address64)).rejects.toThrow(
        /does not match the expected shape:\ndata: null, not a list: the answer holds no list/,
      );
      server.fallback(json(200, {}));
      await expect(client.fetchTokenPriceBatch(['0x2::sui::SUI'])).rejects.toThrow(
        /data: missing: the answer holds no list/,
      );
      server.fallback(json(200, []));
      expect((await client.fetchNftHoldings(address64)).data).toEqual([]);
    });
  });
  describe('the order of requests waiting for the rate limit', () => {
    /** What each recorded request was: its operation, prices at a past time apart. */
    const label = (request: { url: string; body: string }) => {
      if (request.url === '/tokens/sui/price')
        return 'timestamp' in (JSON.parse(request.body) as object) ? 'past prices' : 'prices';
      if (request.url.endsWith('/positions')) return 'positions';
      if (request.url.endsWith('/nft-holding')) return 'nfts';
      return request.url;
    };

    /** Asks for every operation while the budget is paused: the order they then reach the server in. */
    const orderSent = async (overrides: Partial<Record<keyof OptionsInput, string | number>> = {}) => {
      const limiter = budget(20);
      const ordered = makeClient(overrides, limiter);
      await limiter.pause(100, 'test');
      // Asked in the reverse of the default order.
      await Promise.all([
        ordered.fetchTokenPriceBatch(['0x2::sui::SUI'], { at: new Date('2025-03-01T12:00:00Z') }),
        ordered.fetchNftHoldings(address64),
        ordered.fetchPositions(address64),
        ordered.fetchProtocols(),
        ordered.fetchTokenPriceBatch(['0x2::sui::SUI']),
      ]);
      await ordered.close();
      return server.requests.map(label);
    };

    it('by default: current prices (and the protocol list) first, then positions, NFTs, and past prices last', async () => {
      expect(await orderSent()).toEqual(['/v2/defi/protocols', 'prices', 'positions', 'nfts', 'past prices']);
    });

    it('in the order DATASET_PRIORITY gives, past prices still last', async () => {
      expect(await orderSent({ DATASET_PRIORITY: 'nfts,positions,prices' })).toEqual([
        'nfts',
        '/v2/defi/protocols',
        'positions',
        'prices',
        'past prices',
      ]);
    });
  });
});
