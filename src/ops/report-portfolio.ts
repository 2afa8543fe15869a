import { normalizeAddress } from '../chain/address.ts';
import type { Database } from '../db/client.ts';
import {
  countPortfolioRows,
  loadAddressPresence,
  loadLargestNfts,
  loadLargestPositions,
  loadPortfolioSeries,
  streamPortfolioNfts,
  streamPortfolioPositions,
  type AddressWatch,
  type PortfolioNftRow,
  type PortfolioPoint,
  type PortfolioPositionRow,
} from '../db/stores/reports.ts';
import { InvalidInputError } from '../errors.ts';
import { addressFormatLabel } from './address-watch.ts';
import { portfolioSteps, type ReportRange } from './report-request.ts';
import type { Column } from './report-table.ts';

/**
 * The HTML lists at most this many positions, and as many NFT collections: the largest, saying how
 * many more there are; CSV and JSON list every one, read through a cursor.
 */
export const MAX_HTML_ROWS = 200;

/** The positions (or NFT collections) of a refresh: how many, the largest, and every one in batches. */
export interface PortfolioRows<Row> {
  count: number;
  /** At most MAX_HTML_ROWS: all of them when they fit (positions nested after their parent), else the largest. */
  shown: Row[];
  /** Every row, a batch at a time, in the order of `shown` when all fit. */
  all(): AsyncIterable<Row[]>;
}

/** What `chaintap report portfolio` reports about one address. */
export interface PortfolioReport {
  address: string;
  /** How the address is watched; null when it is not. */
  watch: AddressWatch | null;
  range: ReportRange;
  generatedAt: Date;
  series: PortfolioPoint[];
  positions: PortfolioRows<PortfolioPositionRow>;
  nfts: PortfolioRows<PortfolioNftRow>;
}

/**
 * Checks the address and the range, then reads the report: how the address is watched (null when it
 * is not), its series (a point at `from` and at every step up to and including `to`), and the
 * positions and collections of its latest refreshes at or before `to`: counted, the largest read,
 * the rest left to a cursor, so that a wallet of any size is reported in bounded memory. An address
 * that is not watched and has no stored refresh is refused: a typo would otherwise give a report of gaps.
 */
export async function loadPortfolioReport(
  database: Database,
  input: { address: string; range: ReportRange; now: Date },
): Promise<PortfolioReport> {
  const address = normalizeAddress(input.address);
  const { range } = input;
  portfolioSteps(range);
  const presence = await loadAddressPresence(database, address);
  if (!presence.watched && !presence.hasData)
    throw new InvalidInputError(
      `address ${address} is not watched and has no stored positions or NFTs (chaintap addresses list)`,
    );
  const at = { owner: address, at: range.to };
  const counts = await countPortfolioRows(database, address, range.to);
  const positionsAll = () => streamPortfolioPositions(database, at);
  const nftsAll = () => streamPortfolioNfts(database, at);
  const [series, positions, nfts] = await Promise.all([
    loadPortfolioSeries(database, { owners: [address], from: range.from, to: range.to, intervalMs: range.intervalMs }),
    // All of them in their order when they fit (nested ones after their parent), else the largest.
    counts.positions <= MAX_HTML_ROWS
      ? firstRows(positionsAll(), MAX_HTML_ROWS)
      : loadLargestPositions(database, { ...at, limit: MAX_HTML_ROWS }),
    loadLargestNfts(database, { ...at, limit: MAX_HTML_ROWS }),
  ]);
  return {
    address,
    watch: presence.watched,
    range,
    generatedAt: input.now,
    series,
    positions: { count: counts.positions, shown: positions, all: positionsAll },
    nfts: { count: counts.nfts, shown: nfts, all: nftsAll },
  };
}

/** The first `max` rows of a cursor (a refresh written since it was counted may hold more). */
async function firstRows<Row>(batches: AsyncIterable<Row[]>, max: number): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const batch of batches) {
    rows.push(...batch.slice(0, max - rows.length));
    if (rows.length >= max) break;
  }
  return rows;
}

export const SERIES_COLUMNS: Column<PortfolioPoint>[] = [
  { name: 'time', value: (p) => p.time },
  { name: 'positions_value', value: (p) => p.positionsValue },
  { name: 'positions_asset_value', value: (p) => p.positionsAssetValue },
  { name: 'positions_debt_value', value: (p) => p.positionsDebtValue },
  { name: 'nft_value_usd', value: (p) => p.nftValueUsd },
  { name: 'total_value', value: (p) => p.totalValue },
  { name: 'pnl', value: (p) => p.pnl },
  { name: 'positions_snapshot_at', value: (p) => p.positionsSnapshotAt },
  { name: 'nft_snapshot_at', value: (p) => p.nftSnapshotAt },
];

export const POSITION_COLUMNS: Column<PortfolioPositionRow>[] = [
  { name: 'positions_snapshot_at', value: (p) => p.snapshotAt },
  { name: 'position_id', value: (p) => p.positionId },
  { name: 'parent_position_id', value: (p) => p.parentPositionId },
  { name: 'protocol_id', value: (p) => p.protocolId },
  { name: 'protocol_name', value: (p) => p.protocolName },
  { name: 'type', value: (p) => p.type },
  { name: 'chain', value: (p) => p.chain },
  { name: 'input_value', value: (p) => p.inputValue },
  { name: 'current_value', value: (p) => p.currentValue },
  { name: 'current_yield_value', value: (p) => p.currentYieldValue },
  { name: 'yield_collected_value', value: (p) => p.yieldCollectedValue },
  { name: 'asset_value', value: (p) => p.assetValue },
  { name: 'debt_value', value: (p) => p.debtValue },
  { name: 'net_value', value: (p) => p.netValue },
  { name: 'pnl', value: (p) => p.pnl },
  { name: 'health_factor', value: (p) => p.healthFactor },
];

/** The address and how it is watched: one record of its own in the CSV, fields of the document in JSON. */
export const ADDRESS_COLUMNS: Column<PortfolioReport>[] = [
  { name: 'address', value: (a) => a.address },
  { name: 'address_format', value: (a) => addressFormatLabel(a.address) },
  { name: 'datasets', value: (a) => a.watch?.datasets.join(',') ?? null },
  {
    name: 'positions_chain',
    value: (a) => (a.watch?.datasets.includes('positions') ? (a.watch.chain ?? 'ALL') : null),
  },
  { name: 'nft_chain', value: (a) => (a.watch?.datasets.includes('nfts') ? a.watch.nftChain : null) },
];

export const NFT_COLUMNS: Column<PortfolioNftRow>[] = [
  { name: 'nft_snapshot_at', value: (n) => n.snapshotAt },
  { name: 'collection_id', value: (n) => n.collectionId },
  { name: 'collection_name', value: (n) => n.collectionName },
  { name: 'chain', value: (n) => n.chain },
  { name: 'token_count', value: (n) => n.tokenCount },
  { name: 'floor_price_native', value: (n) => n.floorPriceNative },
  { name: 'native_token_symbol', value: (n) => n.nativeTokenSymbol },
  { name: 'native_price_usd', value: (n) => n.nativePriceUsd },
  { name: 'value_usd', value: (n) => n.valueUsd },
  { name: 'realized_pnl', value: (n) => n.realizedPnl },
  { name: 'unrealized_pnl', value: (n) => n.unrealizedPnl },
];
