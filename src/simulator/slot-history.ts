import { eventsBackFrom, WORLD_ORIGIN_MS, type ChangeEvent, type EventSource } from './change-events.ts';

/**
 * What each slot of a wallet's dataset holds at a time, in the living world: the result of its
 * change events. An event picks one slot and
 * - opens (35 %): a new occupant replaces whatever the slot held (a new position, a new collection);
 * - closes (15 %): the occupant goes and the slot is empty;
 * - resizes (50 %): the occupant's size moves (a deposit or a withdrawal, NFTs bought or sold).
 * An event that closes or resizes an empty slot opens it instead, so every event changes the answer.
 * A slot's state follows from its events since its last opening, found by reading the events
 * backwards; a slot that has not opened since the origin holds the occupant it held then.
 */
const OPENS = 0.35;
const CLOSES = 0.15;

export interface SlotState {
  /** The time of the event that opened the occupant (its id), or WORLD_ORIGIN_MS for the original one. */
  openedAt: number;
  /** The time of the slot's last event up to the time asked (openedAt if none since). */
  changedAt: number;
  /** The sizeUnit of each resize since it opened, oldest first (positionSize, holdingCount read them). */
  resizes: number[];
}

/** The state of slots 0..slots-1 at a time: null for an empty slot. */
export function slotStates(source: EventSource, slots: number, timeMs: number): (SlotState | null)[] {
  // Each slot's events since its last opening, newest first.
  const pending: ChangeEvent[][] = Array.from({ length: slots }, () => []);
  const opened: boolean[] = new Array<boolean>(slots).fill(false);
  let unresolved = slots;
  if (slots > 0) {
    for (const event of eventsBackFrom(source, timeMs)) {
      const slot = Math.floor(event.slotUnit * slots);
      if (opened[slot]) continue;
      pending[slot]!.push(event);
      if (event.kindUnit < OPENS) {
        opened[slot] = true;
        if (--unresolved === 0) break;
      }
    }
  }
  return pending.map((events, slot) => {
    let state: SlotState | null = opened[slot]
      ? null
      : { openedAt: WORLD_ORIGIN_MS, changedAt: WORLD_ORIGIN_MS, resizes: [] };
    for (let i = events.length - 1; i >= 0; i--) state = applyEvent(state, events[i]!);
    return state;
  });
}

function applyEvent(state: SlotState | null, event: ChangeEvent): SlotState | null {
  const opening = { openedAt: event.atMs, changedAt: event.atMs, resizes: [] };
  if (state === null || event.kindUnit < OPENS) return opening;
  if (event.kindUnit < OPENS + CLOSES) return null;
  return { openedAt: state.openedAt, changedAt: event.atMs, resizes: [...state.resizes, event.sizeUnit] };
}

/**
 * A position's size relative to its opening, after its resizes: each withdraws 20-60 % or deposits
 * 25-150 % more, a withdrawal when it is over three times its opening size, a deposit when under a
 * third, so that every resize moves every amount by at least a fifth.
 */
export function positionSize(resizes: readonly number[]): number {
  let size = 1;
  for (const unit of resizes) {
    const withdraw = size > 3 ? true : size < 1 / 3 ? false : unit < 0.5;
    const share = (unit * 2) % 1;
    size *= withdraw ? 0.4 + 0.4 * share : 1.25 + 1.25 * share;
  }
  return size;
}

/**
 * How many tokens of a collection a wallet holds after its resizes, from `initial` (at least 1):
 * each buys or sells one or two, selling when it holds three times `initial` or more, buying when it
 * holds one, and never selling the last.
 */
export function holdingCount(initial: number, resizes: readonly number[]): number {
  const most = Math.max(2, 3 * initial);
  let count = initial;
  for (const unit of resizes) {
    const step = unit * 2 < 1 ? 1 : 2;
    const sell = count >= most ? true : count <= 1 ? false : ((unit * 4) | 0) % 2 === 0;
    count = sell ? Math.max(1, count - step) : count + step;
  }
  return count;
}
