import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, writeNftHoldings, writePositions, writeTokenPrices } from '../../src/db/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { commit, nftRows, OWNER, positionRows, priceRows as normalizePrices, SUI, USDC, wirePosition } from './job-helpers.js';

const at = (iso: string) => new Date(iso);
const EMPTY_OWNER = `0x${'e0'.repeat(32)}`;
const NEVER_REFRESHED = `0x${'f0'.repeat(32)}`;

/** A small known dataset: two tokens over two days, two position refreshes, one NFT refresh. */
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
    contract_address: coin, symbol: coin.split('::')[2], price, last24hPrice: '1', timestamp: at(time).getTime() / 1000, source: 'pyth',
  }));
  const fetched = at('2026-11-21T00:00:30Z');
  await commit(database, 'prices', 'batch-1', fetched, (tx) => writeTokenPrices(tx, normalizePrices(entries, fetched)));

  const p1 = at('2026-11-21T00:00:00Z');
  const p2 = at('2026-11-21T00:15:00Z');
  await commit(database, 'positions', OWNER, p1, (tx) => writePositions(tx, positionRows([
    wirePosition('a', { input: 100, current: 90, yieldValue: 5, collected: 10 }),
    wirePosition('b', { input: '50', current: '70.5' }),
  ], p1), { owner: OWNER, snapshotAt: p1, complete: true }));
  await commit(database, 'positions', OWNER, p2, (tx) => writePositions(tx, positionRows([
    wirePosition('a', { input: 100, current: '95.25', yieldValue: 5, collected: 10 }),
  ], p2), { owner: OWNER, snapshotAt: p2, complete: true }));
  await commit(database, 'positions', EMPTY_OWNER, p2, (tx) => writePositions(tx, positionRows([], p2, EMPTY_OWNER), { owner: EMPTY_OWNER, snapshotAt: p2, complete: true }));

  const n1 = at('2026-11-21T00:00:00Z');
  await commit(database, 'nfts', OWNER, n1, (tx) => writeNftHoldings(tx, nftRows([
    { collectionId: 'capys', collection: { name: 'Capys', chain: 'sui' }, tokens: [{ tokenId: '1' }, { tokenId: '2' }], floorPrice: '10', marketPrice: 11, profit: { realizedPnL: 4, unrealizedPnL: '-1.5' } },
    { collectionId: 'apes', collection: { name: 'Apes', chain: 'ETH' }, tokens: [{ tokenId: '9' }], floorPrice: 2 },
  ], n1), { owner: OWNER, snapshotAt: n1, scopeChain: 'ALL' }));
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
    const rows = await database.sql`select coin_type, symbol, price, price_time, source from latest_token_prices order by coin_type`;
    expect(rows).toEqual([
      { coin_type: SUI, symbol: 'SUI', price: '3.3', price_time: at('2026-11-21T00:00:00Z'), source: 'pyth' },
      { coin_type: USDC, symbol: 'USDC', price: '1', price_time: at('2026-11-20T12:00:00Z'), source: 'pyth' },
    ]);
  });

  it('token_prices_daily_ohlc: open, high, low, close and samples per UTC day', async () => {
    const rows = await database.sql`select coin_type, day::text, open, high, low, close, samples from token_prices_daily_ohlc order by coin_type, day`;
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
      { position_id: 'a', protocol_id: 'cetus', type: 'liquidity_pool', chain: 'sui', snapshot_at: at('2026-11-21T00:00:00Z'), input_value: '100', yield_collected_value: '10', current_value: '90', current_yield_value: '5', pnl: '5' },
      { position_id: 'b', protocol_id: 'cetus', type: 'liquidity_pool', chain: 'sui', snapshot_at: at('2026-11-21T00:00:00Z'), input_value: '50', yield_collected_value: '0', current_value: '70.5', current_yield_value: '0', pnl: '20.5' },
      { position_id: 'a', protocol_id: 'cetus', type: 'liquidity_pool', chain: 'sui', snapshot_at: at('2026-11-21T00:15:00Z'), input_value: '100', yield_collected_value: '10', current_value: '95.25', current_yield_value: '5', pnl: '10.25' },
    ]);
  });

  it('nft_pnl: holdings and PnL per collection per snapshot, null PnL when not given', async () => {
    const rows = await database.sql`select collection_id, collection_name, chain, token_count, floor_price, market_price, realized_pnl, unrealized_pnl from nft_pnl order by collection_id`;
    expect(rows).toEqual([
      { collection_id: 'apes', collection_name: 'Apes', chain: 'ETH', token_count: 1, floor_price: '2', market_price: null, realized_pnl: null, unrealized_pnl: null },
      { collection_id: 'capys', collection_name: 'Capys', chain: 'SUI', token_count: 2, floor_price: '10', market_price: '11', realized_pnl: '4', unrealized_pnl: '-1.5' },
    ]);
  });

  it('latest_portfolio: positions value plus NFT value in USD at the latest refreshes', async () => {
    const rows = await database.sql`select * from latest_portfolio order by owner`;
    expect(rows).toEqual([
      // 95.25 + 5 from the 00:15 refresh; NFTs: 2 x floor 10 x SUI 3.3 (the ETH collection has no native price).
      { owner: OWNER, positions_value: '100.25', nft_value: '66.0', total_value: '166.25', positions_snapshot_at: at('2026-11-21T00:15:00Z'), nft_snapshot_at: at('2026-11-21T00:00:00Z') },
      { owner: EMPTY_OWNER, positions_value: '0', nft_value: null, total_value: '0', positions_snapshot_at: at('2026-11-21T00:15:00Z'), nft_snapshot_at: null },
      { owner: NEVER_REFRESHED, positions_value: null, nft_value: null, total_value: '0', positions_snapshot_at: null, nft_snapshot_at: null },
    ].sort((a, b) => a.owner.localeCompare(b.owner)));
  });

  it('dataset_freshness: the last successful tick per dataset and target', async () => {
    const rows = await database.sql`select dataset, target, last_success_tick from dataset_freshness order by dataset, target`;
    expect(rows).toEqual([
      { dataset: 'nfts', target: OWNER, last_success_tick: at('2026-11-21T00:00:00Z') },
      { dataset: 'positions', target: OWNER, last_success_tick: at('2026-11-21T00:15:00Z') },
      { dataset: 'positions', target: EMPTY_OWNER, last_success_tick: at('2026-11-21T00:15:00Z') },
      { dataset: 'prices', target: 'batch-1', last_success_tick: at('2026-11-21T00:00:30Z') },
    ].sort((a, b) => a.dataset.localeCompare(b.dataset) || a.target.localeCompare(b.target)));
  });
});
