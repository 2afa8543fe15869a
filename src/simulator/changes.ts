import { InvalidInputError } from '../errors.ts';
import { eventsBetween, walletEvents } from './change-events.ts';
import { WORLD_DATASETS, type WorldDataset } from './habits.ts';
import { nftSlotCount } from './nft-holdings.ts';
import { positionSlotCount } from './positions.ts';
import { DEFAULT_SEED, type SimulatorWorld } from './world.ts';

/**
 * The true record of the living world (world.habits): when a wallet's positions or NFT holdings
 * changed. A change at time c shows in every answer for a world time t >= c and in none before;
 * between two changes only prices (and the values and pool amounts that follow them) move. The record
 * is a function of (address, dataset, seed) and world time alone, so replaying a stretch of time
 * gives the same changes and the same answers.
 */

/**
 * The times (ms, ascending) of the changes of a wallet's dataset with fromMs < time <= toMs: the
 * changes an answer at toMs shows and one at fromMs does not. Empty for a wallet that holds nothing
 * of the dataset here (a Solana wallet's positions, a TON wallet's NFTs). A change is of the whole
 * answer: one asked with a chain or protocol filter may not show it. Throws InvalidInputError for an
 * unknown address format or dataset, or a range that is not two integers in order.
 */
export function worldChanges(
  address: string,
  dataset: WorldDataset,
  fromMs: number,
  toMs: number,
  seed: string = DEFAULT_SEED,
  world: Partial<SimulatorWorld> = {},
): number[] {
  return worldChangeEvents(address, dataset, fromMs, toMs, seed, world).map((change) => change.atMs);
}

/** The changes of worldChanges with the slot each one changes (a position or collection slot, 0-based). */
export function worldChangeEvents(
  address: string,
  dataset: WorldDataset,
  fromMs: number,
  toMs: number,
  seed: string = DEFAULT_SEED,
  world: Partial<SimulatorWorld> = {},
): { atMs: number; slot: number }[] {
  if (!WORLD_DATASETS.includes(dataset))
    throw new InvalidInputError(`unknown dataset "${String(dataset)}": positions or nfts`);
  if (!Number.isSafeInteger(fromMs) || !Number.isSafeInteger(toMs) || toMs < fromMs)
    throw new InvalidInputError('the range must be two integer times (ms) with from <= to');
  const slots = dataset === 'positions' ? positionSlotCount(address, world) : nftSlotCount(address, seed, world);
  if (slots === 0) return [];
  return eventsBetween(walletEvents(address, dataset, seed), fromMs, toMs).map((event) => ({
    atMs: event.atMs,
    slot: Math.floor(event.slotUnit * slots),
  }));
}
