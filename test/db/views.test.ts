import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, writeNftHoldings, writePositions, writeTokenPrices } from '../../src/db/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import {
  commit,
  nftRows,
  OWNER,
  positionRows,
  priceRows as normalizePrices,
  SUI,
  USDC,
  wirePosition,
} from './job-helpers.ts';

const at = (iso: string) => new Date(iso);
const EMPTY_OWNER = `0x${'e0'.repeat(32)}`;
const NEVER_REFRESHED = `0x${'f0'.repeat(32)}`;
const UNVALUED_OWNER = `0x${'d0'.repeat(32)}`;

/** A holding group as the real service answers it: floorPrice in the native token, marketPrice its USD price. */
const nftGroup = (
  collectionId: string,
  chain: string,
  tokenCount: number,
  prices: { floorPrice?: string | number; marketPrice?: string | number },
  extra: Record<string, unknown> = {},
) => ({
  collectionId,
  collection: { name: collectionId[0]!.toUpperCase() + collectionId.slice(1), chain },
  nativeToken: { symbol: chain.toUpperCase() },
  tokens: Array.from({ length: tokenCount }, (_, i) => ({ tokenId: `${collectionId}-${i}` })),
  ...prices,
  ...extra,
});

/** A small known dataset: two tokens over two days, two position refreshes, NFT refreshes on either side of a price. */
async function seed(database: TestDatabase): Promise<void> {
  const prices: [string, string, string][] = [
    ['0x2::sui::SUI', '2026-11-20T00:00:00Z', '3.00'],
    ['0x2::sui::SUI', '2026-11-20T06:00:00Z', '3.5'],
    ['0x2::sui::SUI', '2026-11-20T12:00:00Z', '2.5'],
    ['0x2::sui::SUI', '2026-11-20T23:59:00Z', '3.2'],
    ['0x2::sui::SUI', '2026-11-21T00:00:00Z', '3.3'],
    [USDC, '2026-11-20T12:00:00Z', '1.0'],
  ];
  const entries = prices.map(([coin, time, price]) => ({
    contract_address: coin,
    symbol: coin.split('::')[2],
    price,
    last24hPrice: '1',
    timestamp: at(time).getTime() / 1000,
    source: 'pyth',
  }));
  const fetched = at('2026-11-21T00:00:30Z');
  await commit(database, 'prices', 'batch-1', fetched, (tx) => writeTokenPrices(tx, normalizePrices(entries, fetched)));

  const p1 = at('2026-11-21T00:00:00Z');
  const p2 = at('2026-11-21T00:15:00Z');
  await commit(database, 'positions', OWNER, p1, (tx) =>
    writePositions(
      tx,
      positionRows(
        [
          wirePosition('a', { input: 100, current: 90, yieldValue: 5, collected: 10 }),
          wirePosition('b', { input: '50', current: '70.5' }),
        ],
        p1,
      ),
      { owner: OWNER, snapshotAt: p1, complete: true },
    ),
  );
  await commit(database, 'positions', OWNER, p2, (tx) =>
    writePositions(
      tx,
      positionRows([wirePosition('a', { input: 100, current: '95.25', yieldValue: 5, collected: 10 })], p2),
      { owner: OWNER, snapshotAt: p2, complete: true },
    ),
  );
  await commit(database, 'positions', EMPTY_OWNER, p2, (tx) =>
    writePositions(tx, positionRows([], p2, EMPTY_OWNER), { owner: EMPTY_OWNER, snapshotAt: p2, complete: true }),
  );

  const writeNfts = (owner: string, tick: Date, groups: unknown[]) =>
    commit(database, 'nfts', owner, tick, (tx) =>
      writeNftHoldings(tx, nftRows(groups, tick, owner), { owner, snapshotAt: tick, scopeChain: 'ALL' }),
    );
  // An older refresh, while SUI was at 2.5: valued at the price in force then, not the latest.
  await writeNfts(OWNER, at('2026-11-20T13:00:00Z'), [nftGroup('frens', 'sui', 1, { floorPrice: 4 })]);
  await writeNfts(OWNER, at('2026-11-21T00:00:00Z'), [
    nftGroup(
      'capys',
      'sui',
      2,
      { floorPrice: '10', marketPrice: 3.4 },
      { profit: { realizedPnL: 4, unrealizedPnL: '-1.5' } },
    ),
    nftGroup('monkes', 'SOL', 3, { floorPrice: '1.5', marketPrice: '150.25' }),
    nftGroup('frens', 'sui', 1, { floorPrice: 4 }),
    nftGroup('apes', 'ETH', 1, { floorPrice: 2 }),
    nftGroup('ghosts', 'SOL', 1, { marketPrice: '150.25' }),
  ]);
  await writeNfts(EMPTY_OWNER, at('2026-11-21T00:00:00Z'), []);
  await writeNfts(UNVALUED_OWNER, at('2026-11-21T00:00:00Z'), [nftGroup('apes', 'ETH', 2, { floorPrice: 2 })]);
  await addWatchedAddresses(database, [OWNER, EMPTY_OWNER, NEVER_REFRESHED], {});
}

describe('reporting views on a known dataset', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database);
  });
  afterAll(() => database.drop());

  it('latest_token_prices: the newest price per token', async () => {
    const rows =
      await database.sql`select coin_type, symbol, price, price_time, source from latest_token_prices order by coin_type`;
    expect(rows).toEqual([
      { coin_type: SUI, symbol: 'SUI', price: '3.3', price_time: at('2026-11-21T00:00:00Z'), source: 'pyth' },
      { coin_type: USDC, symbol: 'USDC', price: '1', price_time: at('2026-11-20T12:00:00Z'), source: 'pyth' },
    ]);
  });

  it('token_prices_daily_ohlc: open, high, low, close and samples per UTC day', async () => {
    const rows =
      await database.sql`select coin_type, day::text, open, high, low, close, samples from token_prices_daily_ohlc order by coin_type, day`;
    expect(rows).toEqual([
      { coin_type: SUI, day: '2026-11-20', open: '3', high: '3.5', low: '2.5', close: '3.2', samples: 4 },
      { coin_type: SUI, day: '2026-11-21', open: '3.3', high: '3.3', low: '3.3', close: '3.3', samples: 1 },
      { coin_type: USDC, day: '2026-11-20', open: '1', high: '1', low: '1', close: '1', samples: 1 },
    ]);
  });

  it('token_prices: the price in force at a time', async () => {
    const [row] = await database.sql`
      select price, price_time from token_prices where coin_type = ${SUI} and price_time <= ${at('2026-11-20T13:00:00Z')}
      order by price_time desc limit 1`;
    expect(row).toEqual({ price: '2.5', price_time: at('2026-11-20T12:00:00Z') });
  });

  it('position_pnl: current + unclaimed yield + yield collected − input, per snapshot', async () => {
    const rows = await database.sql`
      select position_id, protocol_id, type, chain, snapshot_at, input_value, yield_collected_value, current_value, current_yield_value, pnl
      from position_pnl order by snapshot_at, position_id`;
    expect(rows).toEqual([
      {
        position_id: 'a',
        protocol_id: 'cetus',
        type: 'liquidity_pool',
        chain: 'sui',
        snapshot_at: at('2026-11-21T00:00:00Z'),
        input_value: '100',
        yield_collected_value: '10',
        current_value: '90',
        current_yield_value: '5',
        pnl: '5',
      },
      {
        position_id: 'b',
        protocol_id: 'cetus',
        type: 'liquidity_pool',
        chain: 'sui',
        snapshot_at: at('2026-11-21T00:00:00Z'),
        input_value: '50',
        yield_collected_value: '0',
        current_value: '70.5',
        current_yield_value: '0',
        pnl: '20.5',
      },
      {
        position_id: 'a',
        protocol_id: 'cetus',
        type: 'liquidity_pool',
        chain: 'sui',
        snapshot_at: at('2026-11-21T00:15:00Z'),
        input_value: '100',
        yield_collected_value: '10',
        current_value: '95.25',
        current_yield_value: '5',
        pnl: '10.25',
      },
    ]);
  });

  it('nft_pnl: holdings and PnL per collection per snapshot as answered, null PnL when not given', async () => {
    const rows = await database.sql`
      select collection_id, collection_name, chain, snapshot_at, token_count, floor_price, market_price, realized_pnl, unrealized_pnl
      from nft_pnl where owner = ${OWNER} and collection_id in ('apes', 'capys') order by collection_id`;
    expect(rows).toEqual([
      {
        collection_id: 'apes',
        collection_name: 'Apes',
        chain: 'ETH',
        snapshot_at: at('2026-11-21T00:00:00Z'),
        token_count: 1,
        floor_price: '2',
        market_price: null,
        realized_pnl: null,
        unrealized_pnl: null,
      },
      {
        collection_id: 'capys',
        collection_name: 'Capys',
        chain: 'SUI',
        snapshot_at: at('2026-11-21T00:00:00Z'),
        token_count: 2,
        floor_price: '10',
        market_price: '3.4',
        realized_pnl: '4',
        unrealized_pnl: '-1.5',
      },
    ]);
  });

  it('nft_pnl: value_usd = tokens × floor (native) × marketPrice (USD of the native token), on every chain', async () => {
    const rows = await database.sql`
      select collection_id, snapshot_at, native_token_symbol, floor_price_native, market_price_usd, native_price_usd, native_price_source, value_usd
      from nft_pnl where owner = ${OWNER} order by snapshot_at, collection_id`;
    const holding = (
      collectionId: string,
      time: string,
      symbol: string,
      floor: string | null,
      market: string | null,
      nativePrice: string | null,
      source: string | null,
      value: string | null,
    ) => ({
      collection_id: collectionId,
      snapshot_at: at(time),
      native_token_symbol: symbol,
      floor_price_native: floor,
      market_price_usd: market,
      native_price_usd: nativePrice,
      native_price_source: source,
      value_usd: value,
    });
    expect(rows).toEqual([
      // No marketPrice on SUI: 1 × 4 SUI × 2.5, the SUI price in force at 13:00 (12:00's), not the latest 3.3.
      holding('frens', '2026-11-20T13:00:00Z', 'SUI', '4', null, '2.5', 'token_prices', '10.0'),
      // ETH without marketPrice: no USD price of ETH is known, so the value is unknown, not 0.
      holding('apes', '2026-11-21T00:00:00Z', 'ETH', '2', null, null, null, null),
      // 2 × 10 SUI × 3.4 USD per SUI.
      holding('capys', '2026-11-21T00:00:00Z', 'SUI', '10', '3.4', '3.4', 'market_price', '68.0'),
      holding('frens', '2026-11-21T00:00:00Z', 'SUI', '4', null, '3.3', 'token_prices', '13.2'),
      // No floor: unknown even with the SOL price.
      holding('ghosts', '2026-11-21T00:00:00Z', 'SOL', null, '150.25', '150.25', 'market_price', null),
      // 3 × 1.5 SOL × 150.25 USD per SOL.
      holding('monkes', '2026-11-21T00:00:00Z', 'SOL', '1.5', '150.25', '150.25', 'market_price', '676.125'),
    ]);
  });

  it('latest_portfolio: positions value plus NFT value in USD at the latest refreshes', async () => {
    const rows = await database.sql`select * from latest_portfolio order by owner`;
    expect(rows).toEqual(
      [
        // 95.25 + 5 from the 00:15 refresh; NFTs of the 00:00 refresh: 68.0 + 676.125 + 13.2 (apes and ghosts unknown).
        {
          owner: OWNER,
          positions_value: '100.25',
          nft_value: '757.325',
          total_value: '857.575',
          positions_snapshot_at: at('2026-11-21T00:15:00Z'),
          nft_snapshot_at: at('2026-11-21T00:00:00Z'),
          nft_unvalued_collections: 2,
          positions_asset_value: '100.25',
          positions_debt_value: '0',
          positions_unvalued: 0,
        },
        // Its NFT refresh held nothing: worth 0.
        {
          owner: EMPTY_OWNER,
          positions_value: '0',
          nft_value: '0',
          total_value: '0',
          positions_snapshot_at: at('2026-11-21T00:15:00Z'),
          nft_snapshot_at: at('2026-11-21T00:00:00Z'),
          nft_unvalued_collections: 0,
          positions_asset_value: '0',
          positions_debt_value: '0',
          positions_unvalued: 0,
        },
        // Holds only what has no known value: unknown, not 0.
        {
          owner: UNVALUED_OWNER,
          positions_value: null,
          nft_value: null,
          total_value: '0',
          positions_snapshot_at: null,
          nft_snapshot_at: at('2026-11-21T00:00:00Z'),
          nft_unvalued_collections: 1,
          positions_asset_value: null,
          positions_debt_value: null,
          positions_unvalued: null,
        },
        {
          owner: NEVER_REFRESHED,
          positions_value: null,
          nft_value: null,
          total_value: '0',
          positions_snapshot_at: null,
          nft_snapshot_at: null,
          nft_unvalued_collections: null,
          positions_asset_value: null,
          positions_debt_value: null,
          positions_unvalued: null,
        },
      ].sort((a, b) => a.owner.localeCompare(b.owner)),
    );
  });

  it('dataset_freshness: the last successful tick per dataset and target', async () => {
    const rows =
      await database.sql`select dataset, target, last_success_tick from dataset_freshness order by dataset, target`;
    expect(rows).toEqual(
      [
        { dataset: 'nfts', target: OWNER, last_success_tick: at('2026-11-21T00:00:00Z') },
        { dataset: 'nfts', target: EMPTY_OWNER, last_success_tick: at('2026-11-21T00:00:00Z') },
        { dataset: 'nfts', target: UNVALUED_OWNER, last_success_tick: at('2026-11-21T00:00:00Z') },
        { dataset: 'positions', target: OWNER, last_success_tick: at('2026-11-21T00:15:00Z') },
        { dataset: 'positions', target: EMPTY_OWNER, last_success_tick: at('2026-11-21T00:15:00Z') },
        { dataset: 'prices', target: 'batch-1', last_success_tick: at('2026-11-21T00:00:30Z') },
      ].sort((a, b) => a.dataset.localeCompare(b.dataset) || a.target.localeCompare(b.target)),
    );
  });
  it('value a wallet with debt at its net worth, from position_pnl to the refresh views and latest_portfolio', async () => {
    // Deposit 10,000 (a whole Lending position nested in the Borrow's input), borrow 8,000: worth
    // 2,000 plus its other position; a position whose value is unknown is left out and counted.
    const owner = `0x${'de'.repeat(32)}`;
    const tick = at('2026-11-21T00:30:00Z');
    const collateral = {
      ...wirePosition('lend', { input: 9990, current: '9999.5', yieldValue: '0.5' }),
      type: 'Lending',
    };
    const borrow = {
      ...wirePosition('loan', { current: '7999.75', yieldValue: '0.25' }),
      type: 'Borrow',
      input: [collateral],
      current: { tokens: [{ amount: 8000, value: '7999.75' }], yield: [{ amount: 1, value: '0.25' }], healthy: '1.62' },
    };
    const unknown = wirePosition('unknown', { input: 1 });
    await commit(database, 'positions', owner, tick, (tx) =>
      writePositions(
        tx,
        positionRows(
          [borrow, wirePosition('lp', { input: 100, current: 120, yieldValue: 3 }), { ...unknown, current: null }],
          tick,
          owner,
        ),
        { owner, snapshotAt: tick, complete: true },
      ),
    );
    const pnl = await database.sql`
      select position_id, type, parent_position_id, asset_value, debt_value, net_value, pnl, health_factor
      from position_pnl where owner = ${owner} order by position_id`;
    expect(pnl).toEqual([
      {
        position_id: 'loan',
        type: 'Borrow',
        parent_position_id: null,
        asset_value: '10000',
        debt_value: '8000',
        net_value: '2000',
        pnl: null,
        health_factor: '1.62',
      },
      {
        position_id: 'loan/input/0',
        type: 'Lending',
        parent_position_id: 'loan',
        asset_value: '10000',
        debt_value: '0',
        net_value: '10000',
        pnl: '10',
        health_factor: null,
      },
      {
        position_id: 'lp',
        type: 'liquidity_pool',
        parent_position_id: null,
        asset_value: '123',
        debt_value: '0',
        net_value: '123',
        pnl: '23',
        health_factor: null,
      },
      {
        position_id: 'unknown',
        type: 'liquidity_pool',
        parent_position_id: null,
        asset_value: null,
        debt_value: '0',
        net_value: null,
        pnl: null,
        health_factor: null,
      },
    ]);
    const snapshots = await database.sql`
      select position_id, asset_value, debt_value, net_value, pnl, health_factor from position_snapshots
      where owner = ${owner} and position_id = 'loan'`;
    expect(snapshots).toEqual([
      {
        position_id: 'loan',
        asset_value: '10000',
        debt_value: '8000',
        net_value: '2000',
        pnl: null,
        health_factor: '1.62',
      },
    ]);
    expect(await database.sql`select * from position_refresh_values where owner = ${owner}`).toEqual([
      {
        owner,
        snapshot_at: tick,
        complete: true,
        position_count: 4,
        asset_value: '10123',
        debt_value: '8000',
        net_value: '2123',
        unvalued_positions: 1,
      },
    ]);
    expect(
      await database.sql`
        select positions_value, positions_asset_value, positions_debt_value, positions_unvalued, total_value
        from latest_portfolio where owner = ${owner}`,
    ).toEqual([
      {
        positions_value: '2123',
        positions_asset_value: '10123',
        positions_debt_value: '8000',
        positions_unvalued: 1,
        total_value: '2123',
      },
    ]);
  });

  it('nft_refresh_values: each NFT refresh valued as latest_portfolio values the latest', async () => {
    const rows = await database.sql`
      select owner, snapshot_at, scope_chain, collection_count, value_usd, unvalued_collections
      from nft_refresh_values where owner = ${OWNER} order by snapshot_at`;
    expect(rows).toEqual([
      {
        owner: OWNER,
        snapshot_at: at('2026-11-20T13:00:00Z'),
        scope_chain: 'ALL',
        collection_count: 1,
        value_usd: '10.0',
        unvalued_collections: 0,
      },
      {
        owner: OWNER,
        snapshot_at: at('2026-11-21T00:00:00Z'),
        scope_chain: 'ALL',
        collection_count: 5,
        value_usd: '757.325',
        unvalued_collections: 2,
      },
    ]);
  });
});
