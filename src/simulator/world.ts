import { hashOf } from './hash.ts';

/** Size and pace of the simulated world, by default. */
export const DEFAULT_WORLD = {
  positionsPerAddress: 10,
  collectionsPerAddress: 5,
  tokensPerCollection: 3,
  /** Positions and NFT holdings are constant within an epoch. */
  epochMs: 15 * 60_000,
  /** Within an epoch, values follow the prices in steps of this many milliseconds; 0: constant. */
  valuationMs: 0,
  /**
   * Answer with the variations real answers show (upstream-reality.md): numeric strings and wrapped
   * numbers, duplicate position ids, a nested collateral position, undocumented and missing fields, the
   * real position types, a `{ data }`-wrapped NFT answer, `marketPrice` as the native token's USD price
   * and `{ error }` bodies. Off by default until the pipeline reads these shapes.
   */
  realShapes: false,
};
export type SimulatorWorld = typeof DEFAULT_WORLD;

export const DEFAULT_SEED = 'chaintap';

export function resolveWorld(world: Partial<SimulatorWorld> = {}): SimulatorWorld {
  return { ...DEFAULT_WORLD, ...world };
}

/** Index of the epoch a world time falls into. */
export function epochOf(worldTimeMs: number, world: Partial<SimulatorWorld> = {}): number {
  return Math.floor(worldTimeMs / resolveWorld(world).epochMs);
}

/** The time values are priced at for a world time: the start of its valuation step within its epoch. */
export function valuationTime(worldTimeMs: number, world: Partial<SimulatorWorld> = {}): number {
  const { epochMs, valuationMs } = resolveWorld(world);
  const epochStart = epochOf(worldTimeMs, { epochMs }) * epochMs;
  if (valuationMs <= 0) return epochStart;
  return epochStart + Math.floor((worldTimeMs - epochStart) / valuationMs) * valuationMs;
}

/**
 * Which occupant a slot (a position slot, an NFT slot) has at an epoch. Each slot's occupant lives
 * between lifetime.min and lifetime.max epochs (fixed per slot), with a per-slot phase so that
 * slots do not all turn over together: moving the clock by a few epochs replaces some occupants.
 */
export function slotOccupant(
  slotKey: string,
  epoch: number,
  lifetime: { min: number; max: number },
): { generation: number; openedEpoch: number } {
  const hash = hashOf(slotKey, 'lifetime');
  const epochs = lifetime.min + (hash % (lifetime.max - lifetime.min + 1));
  const phase = Math.floor(hash / 1024) % epochs;
  const generation = Math.floor((epoch + phase) / epochs);
  return { generation, openedEpoch: generation * epochs - phase };
}
