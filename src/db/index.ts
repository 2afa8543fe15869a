// The storage layer: the pool, the job transaction, the stores and the maintenance operations. The
// migrations (./migrate.ts, which loads Drizzle's migrator) are imported by the commands that run them.
export { createDatabase, type Database, type Sql } from './client.ts';
export { runQuery, type StoreOperation } from './query.ts';
export { withTransaction, type Tx } from './transaction.ts';
export {
  ensurePartitions,
  detachOldPricePartitions,
  compactPriceIndexes,
  PARTITIONED_TABLES,
  ARCHIVE_SCHEMA,
} from './partitions.ts';
export {
  commitJob,
  recordJobFailure,
  quarantinePayload,
  recordSupersededRuns,
  type Fence,
  type RunRecord,
  type SupersededRun,
} from './stores/jobs.ts';
export { loadTargetWatermarks } from './stores/watermarks.ts';
export {
  pruneRawResponses,
  readRawResponses,
  type RawRecord,
  type RawResponseFilter,
  type StoredRawResponse,
} from './stores/raw-responses.ts';
export { writeTokenPrices, storedPriceTimes } from './stores/prices.ts';
export { writePositions, type PositionsWriteContext } from './stores/positions.ts';
export { writeNftHoldings, type NftWriteContext } from './stores/nfts.ts';
export { writeProtocols, listProtocolIds } from './stores/protocols.ts';
export {
  addWatchedTokens,
  removeWatchedTokens,
  listWatchedTokens,
  addWatchedAddresses,
  removeWatchedAddresses,
  listWatchedAddresses,
  parseAddressOptions,
  type InputValue,
  type WatchedAddress,
  type WatchedAddressOptions,
  type WatchlistInput,
} from './stores/watchlist.ts';
export {
  applyWatchlist,
  type DeclaredAddress,
  type DeclaredWatchlist,
  type WatchlistChanges,
} from './stores/watchlist-apply.ts';
