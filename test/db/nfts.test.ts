import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeNftHoldings } from '../../src/db/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commit, nftRows, OWNER, snapshotOf } from './job-helpers.ts';

const tick = (n: number) => new Date(Date.UTC(2026, 10, 21, 12 + n));
const group = (collectionId: string, chain: string, tokenIds: string[], extra: Record<string, unknown> = {}) => ({
  owner: OWNER,
  collectionId,
  collection: { name: collectionId.toUpperCase(), chain, verified: true, scam: false },
  nativeToken: { symbol: chain, decimals: 9 },
  tokens: tokenIds.map((tokenId) => ({ tokenId, price: '1.5', cost: 1 })),
  floorPrice: '1.25',
  marketPrice: 1.3,
  ...extra,
});

describe('writeNftHoldings', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const write = (at: Date, groups: unknown[], scopeChain = 'ALL') =>
    commit(database, 'nfts', `${OWNER}-${scopeChain}`, at, (tx) =>
      writeNftHoldings(tx, nftRows(groups, at), { owner: OWNER, snapshotAt: at, scopeChain }),
    );
  const tokens = async () => database.sql`
    select collection_id, token_id, chain, first_seen_at, last_seen_at, released_at from nft_tokens order by collection_id, token_id`;

  it('writes collections, holdings with null PnL when profit is absent, and tokens', async () => {
    const result = await write(tick(0), [
      group('capys', 'sui', ['1', '2']),
      group('apes', 'ETH', ['7'], { profit: { realizedPnL: '-2.5', unrealizedPnL: 0 } }),
    ]);
    expect(result.byTable).toEqual({ nft_collections: 2, nft_holding_snapshots: 2, nft_tokens: 3, nft_refreshes: 1 });
    const holdings =
      await database.sql`select collection_id, chain, token_count, floor_price, realized_pnl, unrealized_pnl from nft_holding_snapshots order by 1`;
    expect(holdings).toEqual([
      {
        collection_id: 'apes',
        chain: 'ETH',
        token_count: 1,
        floor_price: '1.25',
        realized_pnl: '-2.5',
        unrealized_pnl: '0',
      },
      {
        collection_id: 'capys',
        chain: 'SUI',
        token_count: 2,
        floor_price: '1.25',
        realized_pnl: null,
        unrealized_pnl: null,
      },
    ]);
  });

  it('changes nothing when the same tick is written twice', async () => {
    const tables = ['nft_collections', 'nft_holding_snapshots', 'nft_tokens', 'nft_refreshes'];
    const before = (await Promise.all(tables.map((t) => snapshotOf(database, t, { versions: true })))).flat();
    const again = await write(tick(0), [
      group('capys', 'sui', ['1', '2']),
      group('apes', 'ETH', ['7'], { profit: { realizedPnL: '-2.5', unrealizedPnL: 0 } }),
    ]);
    expect(again.byTable).toEqual({});
    expect((await Promise.all(tables.map((t) => snapshotOf(database, t, { versions: true })))).flat()).toEqual(before);
  });

  it('releases only within the refresh scope, and holds a token again when it comes back', async () => {
    // A SUI-only refresh without token 2 releases it, but not the ETH token it did not cover.
    await write(tick(1), [group('capys', 'SUI', ['1'])], 'SUI');
    expect((await tokens()).map((t) => [t.token_id, t.released_at])).toEqual([
      ['7', null],
      ['1', null],
      ['2', tick(1)],
    ]);
    await write(tick(2), [group('capys', 'SUI', ['1', '2'])], 'SUI');
    const back = (await tokens()).find((t) => t.token_id === '2')!;
    expect(back).toMatchObject({ last_seen_at: tick(2), released_at: null });
    // An ALL refresh without the ETH collection releases its token.
    await write(tick(3), [group('capys', 'sui', ['1', '2'])]);
    expect((await tokens()).find((t) => t.token_id === '7')!.released_at).toEqual(tick(3));
  });

  it('lets an older tick arriving late move nothing seen after it; a release moves to its first absence', async () => {
    const before = await tokens();
    await write(tick(1), [group('capys', 'sui', [])]);
    const after = await tokens();
    // Tokens 1 and 2 were seen at tick 3: untouched. Token 7, last seen at tick 0, was already absent at tick 1.
    expect(after.filter((t) => t.token_id !== '7')).toEqual(before.filter((t) => t.token_id !== '7'));
    expect(after.find((t) => t.token_id === '7')).toMatchObject({ last_seen_at: tick(0), released_at: tick(1) });
  });

  it('fills a missing collection chain from the refresh scope', async () => {
    await write(tick(4), [{ collectionId: 'anon', tokens: [{ tokenId: 'x' }] }], 'SOL');
    const [row] = await database.sql`select chain from nft_tokens where collection_id = 'anon'`;
    expect(row).toEqual({ chain: 'SOL' });
  });
});
