/**
 * The simulated upstream (upstream-api.md): an HTTP server for tests, benchmarks and local runs, and
 * the pure world functions it answers from, so tests can predict every value it returns.
 */
export { startSimulator, type RunningSimulator, type SimulatorOptions } from './server.js';
export { NO_FAULTS, resolveFaults, type SimulatorFaults } from './faults.js';
export type { Operation, SimulatorStats } from './stats.js';
export { DEFAULT_SEED, DEFAULT_WORLD, epochOf, type SimulatorWorld } from './world.js';
export { PRICE_GRID_MS, priceGridTime } from './price-model.js';
export {
  MAX_TOKENS_PER_PRICE_REQUEST,
  priceRequestTime,
  simulatedPriceEntry,
  simulatedPriceResponse,
  simulatedToken,
  simulatedTokenPrice,
  type PriceRequestTime,
  type SimulatedPriceEntry,
  type SimulatedToken,
} from './token-prices.js';
export { simulatedPositions, type PositionFilter } from './positions.js';
export { simulatedNftAnswer, simulatedNftHoldings, type NftHoldingsQuery } from './nft-holdings.js';
export {
  POSITION_CHAINS,
  POSITION_TYPES,
  simulatedProtocols,
  simulatedProtocolsResponse,
  type PositionChain,
  type PositionType,
  type SimulatedProtocol,
} from './protocols.js';
export type { Json, JsonObject } from './json.js';
