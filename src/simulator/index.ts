/**
 * The simulated upstream (upstream-api.md): an HTTP server for tests, benchmarks and local runs, and
 * the pure world functions it answers from, so tests can predict every value it returns.
 */
export { startSimulator, type RunningSimulator, type SimulatorOptions } from './server.ts';
export { NO_FAULTS, resolveFaults, type SimulatorFaults } from './faults.ts';
export type { Operation, SimulatorStats } from './stats.ts';
export { DEFAULT_SEED, DEFAULT_WORLD, epochOf, type SimulatorWorld } from './world.ts';
export { PRICE_GRID_MS, priceGridTime } from './price-model.ts';
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
} from './token-prices.ts';
export { simulatedPositions, type PositionFilter } from './positions.ts';
export { simulatedNftAnswer, simulatedNftHoldings, type NftHoldingsQuery } from './nft-holdings.ts';
export {
  POSITION_CHAINS,
  POSITION_TYPES,
  simulatedProtocols,
  simulatedProtocolsResponse,
  type PositionChain,
  type PositionType,
  type SimulatedProtocol,
} from './protocols.ts';
export type { Json, JsonObject } from './json.ts';
