// The storage layer: the pool, the job transaction, the stores and the maintenance operations.
export { createDatabase, type Database, type Db, type Sql } from './client.js';
export { ensureDatabase, runMigrations } from './migrate.js';
export { runQuery, type StoreOperation } from './query.js';
export { withTransaction, type Tx } from './transaction.js';
export {
  ensurePartitions,
  detachOldPricePartitions,
  compactPriceIndexes,
  PARTITIONED_TABLES,
  ARCHIVE_SCHEMA,
} from './partitions.js';
export {
  commitJob,
  recordJobFailure,
  quarantinePayload,
  recordSupersededRuns,
  type RunRecord,
  type SupersededRun,
} from './stores/jobs.js';
export { loadTargetWatermarks } from './stores/watermarks.js';
export {
  pruneRawResponses,
  readRawResponses,
  type RawRecord,
  type RawResponseFilter,
  type StoredRawResponse,
} from './stores/raw-responses.js';
export { writeTokenPrices, storedPriceTimes } from './stores/prices.js';
export { writePositions, type PositionsWriteContext } from './stores/positions.js';
export { writeNftHoldings, type NftWriteContext } from './stores/nfts.js';
export { writeProtocols, listProtocolIds } from './stores/protocols.js';
export {
  addWatchedTokens,
  removeWatchedTokens,
  listWatchedTokens,
  addWatchedAddresses,
  removeWatchedAddresses,
  listWatchedAddresses,
  type WatchedAddress,
  type WatchedAddressOptions,
} from './stores/watchlist.js';
