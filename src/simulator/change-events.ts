import { Draws } from './hash.ts';
import { BURST, walletHabit, type ChangeProcess, type WorldDataset } from './habits.ts';

/**
 * The change events of one dataset of one wallet, drawn without state: time is cut into windows
 * (a Poisson wallet's mean interval, a bursty wallet's cycle) and each window's events are drawn from
 * (seed, address, dataset, window index) alone, so any stretch of time, forwards or backwards, is
 * read without replaying what came before. A Poisson process is a Poisson count per window (mean 1)
 * placed uniformly within it. Nothing changes at or before WORLD_ORIGIN_MS: what a wallet holds then
 * it has held since forever.
 */
export const WORLD_ORIGIN_MS = Date.UTC(2025, 0, 1);

/** One change: its time (also its id: no two changes of a wallet's dataset share a millisecond) and its draws. */
export interface ChangeEvent {
  atMs: number;
  /** Which slot it changes (positions: a position slot; nfts: a collection slot). */
  slotUnit: number;
  /** Whether it opens, closes or resizes (slot-history.ts). */
  kindUnit: number;
  /** How much a resize moves. */
  sizeUnit: number;
}

/** Whose events: the wallet (normal form), its dataset, its process and the seed. */
export interface EventSource {
  owner: string;
  dataset: WorldDataset;
  process: ChangeProcess;
  seed: string;
}

/** The events with from < atMs <= to, oldest first. */
export function eventsBetween(source: EventSource, fromMs: number, toMs: number): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  if (toMs <= fromMs) return events;
  const from = Math.max(fromMs, WORLD_ORIGIN_MS);
  for (let index = windowOf(source.process, from); windowStart(source.process, index) <= toMs; index++) {
    for (const event of windowEvents(source, index)) if (event.atMs > from && event.atMs <= toMs) events.push(event);
  }
  return events;
}

/** The events with atMs <= timeMs, newest first, down to the origin (read lazily: callers stop early). */
export function* eventsBackFrom(source: EventSource, timeMs: number): Generator<ChangeEvent> {
  for (let index = windowOf(source.process, timeMs); ; index--) {
    if (windowStart(source.process, index + 1) <= WORLD_ORIGIN_MS) return;
    const events = windowEvents(source, index);
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i]!;
      if (event.atMs <= WORLD_ORIGIN_MS) return;
      if (event.atMs <= timeMs) yield event;
    }
  }
}

function windowLength(process: ChangeProcess): number {
  return process.kind === 'poisson' ? process.meanIntervalMs : process.cycleMs;
}

function windowOf(process: ChangeProcess, timeMs: number): number {
  const phase = process.kind === 'bursts' ? process.phaseMs : 0;
  return Math.floor((timeMs - phase) / windowLength(process));
}

function windowStart(process: ChangeProcess, index: number): number {
  const phase = process.kind === 'bursts' ? process.phaseMs : 0;
  return phase + index * windowLength(process);
}

/** The events of one window, oldest first, at distinct whole milliseconds within it. */
function windowEvents(source: EventSource, index: number): ChangeEvent[] {
  const { process } = source;
  const draws = new Draws(source.seed, source.owner, source.dataset, 'changes', index);
  const start = windowStart(process, index);
  const times: number[] = [];
  if (process.kind === 'poisson') {
    const length = process.meanIntervalMs;
    const count = poissonOfMeanOne(draws.unit());
    for (let i = 0; i < count; i++) times.push(start + Math.floor(draws.unit() * length));
  } else {
    const burstStart = start + Math.floor(draws.unit() * process.startSpreadMs);
    const count = draws.integer(BURST.size.min, BURST.size.max);
    for (let i = 0; i < count; i++) times.push(burstStart + Math.floor(draws.unit() * BURST.withinMs));
  }
  times.sort((a, b) => a - b);
  for (let i = 1; i < times.length; i++) if (times[i]! <= times[i - 1]!) times[i] = times[i - 1]! + 1;
  return times.map((atMs) => ({ atMs, slotUnit: draws.unit(), kindUnit: draws.unit(), sizeUnit: draws.unit() }));
}

/** A Poisson(1) count by inverting its distribution function at `unit`. */
function poissonOfMeanOne(unit: number): number {
  let probability = Math.exp(-1);
  let cumulative = probability;
  let count = 0;
  while (unit >= cumulative && count < 30) {
    count++;
    probability /= count;
    cumulative += probability;
  }
  return count;
}

/** The event source of a wallet's dataset (throws InvalidInputError for an address of no known format). */
export function walletEvents(address: string, dataset: WorldDataset, seed: string): EventSource {
  const habit = walletHabit(address, seed);
  return { owner: habit.address, dataset, process: habit[dataset], seed };
}
