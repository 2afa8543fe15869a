// The storage layer: the pool, the job transaction, the stores and the maintenance operations. The
// migrations (./migrate.ts, which loads Drizzle's migrator) are imported by the commands that run them.
export { createDatabase } from './client.ts';
export { withTransaction, type Tx } from './transaction.ts';
export { ensurePartitions, detachOldPricePartitions, compactPriceIndexes, PARTITIONED_TABLES } from './partitions.ts';
export {
  commitJob,
  recordJobFailure,
  quarantinePayload,
  recordSupersededRuns,
  type Fence,
  type RunRecord,
  type SupersededRun,
  loadTargetWatermarks,
} from './stores/jobs.ts';
export { pruneRawResponses, readRawResponses, type RawRecord } from './stores/raw-responses.ts';
export { writeTokenPrices, storedPriceTimes, harvestedPriceCoinTypes } from './stores/prices.ts';
export { writePositions } from './stores/positions.ts';
export { writeNftHoldings } from './stores/nfts.ts';
export { writeProtocols } from './stores/protocols.ts';
export {
  addWatchedTokens,
  removeWatchedTokens,
  listWatchedTokens,
  addWatchedAddresses,
  removeWatchedAddresses,
  listWatchedAddresses,
} from './stores/watchlist.ts';
export { applyWatchlist } from './stores/watchlist-apply.ts';
