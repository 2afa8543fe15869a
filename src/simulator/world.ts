import { hashOf } from './hash.ts';

/** Size and pace of the simulated world, by default. */
export const DEFAULT_WORLD = {
  positionsPerAddress: 10,
  collectionsPerAddress: 5,
  tokensPerCollection: 3,
  /**
   * Positions and NFT holdings are constant within an epoch (values too, unless valuationMs). In the
   * living world (habits) they change at their wallet's change events instead and the epoch only
   * sets when values follow the prices.
   */
  epochMs: 15 * 60_000,
  /** Within an epoch, values follow the prices in steps of this many milliseconds; 0: constant. */
  valuationMs: 0,
  /** Answer with the variations real answers show (upstream-reality.md); off until the pipeline reads them all. */
  realShapes: false,
  /**
   * The living world: each wallet changes at the events of its habit (habits.ts, changes.ts), which
   * are recorded and readable, instead of every slot turning over every 2 to 8 epochs.
   */
  habits: false,
};
export type SimulatorWorld = typeof DEFAULT_WORLD;

export const DEFAULT_SEED = 'chaintap';

export function resolveWorld(world: Partial<SimulatorWorld> = {}): SimulatorWorld {
  return { ...DEFAULT_WORLD, ...world };
}

/**
 * The world at a world time: its settings, the index of the epoch the time falls into, and the time
 * values are priced at (the start of its valuation step within the epoch).
 */
export function worldAt(worldTimeMs: number, world: Partial<SimulatorWorld>) {
  const resolved = resolveWorld(world);
  const { epochMs, valuationMs } = resolved;
  const epoch = Math.floor(worldTimeMs / epochMs);
  const steps = valuationMs <= 0 ? 0 : Math.floor((worldTimeMs - epoch * epochMs) / valuationMs);
  return { ...resolved, epoch, valuedAt: epoch * epochMs + steps * valuationMs };
}

/**
 * Which occupant a slot (a position slot, an NFT slot) has at an epoch. Each slot's occupant lives
 * between lifetime.min and lifetime.max epochs (fixed per slot), with a per-slot phase so that
 * slots do not all turn over together: moving the clock by a few epochs replaces some occupants.
 */
export function slotOccupant(slotKey: string, epoch: number, lifetime: { min: number; max: number }) {
  const hash = hashOf(slotKey, 'lifetime');
  const epochs = lifetime.min + (hash % (lifetime.max - lifetime.min + 1));
  const phase = Math.floor(hash / 1024) % epochs;
  const generation = Math.floor((epoch + phase) / epochs);
  return { generation, openedEpoch: generation * epochs - phase };
}
