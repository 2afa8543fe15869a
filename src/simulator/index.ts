/**
 * The simulated upstream (upstream-api.md): an HTTP server for tests, benchmarks and local runs, and
 * the pure world functions it answers from, so tests can predict every value it returns.
 */
export { startSimulator, type RunningSimulator, type SimulatorOptions } from './server.ts';
export { resolveFaults, type SimulatorFaults } from './faults.ts';
export type { SimulatorStats } from './stats.ts';
export { DEFAULT_WORLD, type SimulatorWorld } from './world.ts';
export type { WorldClockSetting, WorldClockState } from './world-clock.ts';
export {
  HABIT_MIX,
  NFT_SLOWDOWN,
  walletHabit,
  WORLD_DATASETS,
  type ChangeProcess,
  type HabitName,
  type WalletHabit,
  type WorldDataset,
} from './habits.ts';
export { worldChanges } from './changes.ts';
export { WORLD_ORIGIN_MS } from './change-events.ts';
export { priceRequestTime, simulatedPriceResponse, simulatedToken, simulatedTokenPrice } from './token-prices.ts';
export { simulatedPositions } from './positions.ts';
export { simulatedNftAnswer, simulatedNftHoldings } from './nft-holdings.ts';
export { POSITION_TYPES, simulatedProtocols, simulatedProtocolsResponse } from './protocols.ts';
export type { Json, JsonObject } from './json.ts';
