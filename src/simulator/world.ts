import { hashOf } from './hash.js';

/** Size and pace of the simulated world. */
export interface SimulatorWorld {
  positionsPerAddress: number;
  collectionsPerAddress: number;
  tokensPerCollection: number;
  /** World state (positions, NFTs, their values) is constant within an epoch. */
  epochMs: number;
}

export const DEFAULT_WORLD: SimulatorWorld = {
  positionsPerAddress: 10,
  collectionsPerAddress: 5,
  tokensPerCollection: 3,
  epochMs: 15 * 60_000,
};

export const DEFAULT_SEED = 'chaintap';

export function resolveWorld(world: Partial<SimulatorWorld> = {}): SimulatorWorld {
  return { ...DEFAULT_WORLD, ...world };
}

/** Index of the epoch a world time falls into. */
export function epochOf(worldTimeMs: number, world: Partial<SimulatorWorld> = {}): number {
  return Math.floor(worldTimeMs / resolveWorld(world).epochMs);
}

/**
 * Which occupant a slot (a position slot, an NFT slot) has at an epoch. Each slot's occupant lives
 * `lifetime` epochs (between minEpochs and maxEpochs, fixed per slot), with a per-slot phase so that
 * slots do not all turn over together: moving the clock by a few epochs replaces some occupants.
 */
export interface SlotOccupant {
  generation: number;
  /** First and last epoch (inclusive) of this occupant. */
  openedEpoch: number;
  closesEpoch: number;
}

export function slotOccupant(slotKey: string, epoch: number, minEpochs: number, maxEpochs: number): SlotOccupant {
  const hash = hashOf(slotKey, 'lifetime');
  const lifetime = minEpochs + (hash % (maxEpochs - minEpochs + 1));
  const phase = Math.floor(hash / 1024) % lifetime;
  const generation = Math.floor((epoch + phase) / lifetime);
  const openedEpoch = generation * lifetime - phase;
  return { generation, openedEpoch, closesEpoch: openedEpoch + lifetime - 1 };
}
