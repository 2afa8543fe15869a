import type { AddressDataset } from '../datasets.ts';

/**
 * Which targets a slot refreshes (docs/quota.md, "Refresh by change rate"). Pure.
 *
 * The budget: the quota left after prices and maintenance, less a headroom. Every target's max age
 * (and every pinned cadence) is served first; what is left goes to the datasets in DATASET_PRIORITY
 * order, each up to every target every slot. With the budget for every target every slot, every
 * target is due every slot, as with a fixed cadence.
 *
 * Within a short budget, a slot takes the targets that must go (pinned and due, or due before their
 * max age would pass), then the never refreshed, then those whose tokens' prices moved sharply since
 * their refresh, then the others by the index λ·a² (λ the estimated changes
 * per hour, a the hours since the last refresh): the expected detection delay a target has piled
 * up. Serving the largest index first spaces a target's refreshes by 1/√λ, the square-root rule that
 * minimises the mean delay from a change to its detection for a fixed number of refreshes (Cho and
 * Garcia-Molina, ACM TODS 2003; Olston and Pandey, WWW 2008).
 */

/** Share of the quota kept free: retries, the price catch-up, a slot's rounding. */
const REFRESH_HEADROOM = 0.03;

export interface RefreshTarget {
  target: string;
  /** Tick of its last refresh (epoch ms), null when never refreshed. */
  lastTickMs: number | null;
  ratePerHour: number;
  maxAgeMs: number;
  /** A pinned cadence (ms): refreshed at that interval, whatever its rate. */
  everyMs: number | null;
  /** Whether a job of a recent slot is still to refresh it: not chosen again meanwhile. */
  pending?: boolean;
  /** The largest relative move of a token it held since its last refresh (the prices chaintap holds). */
  priceMove?: number;
}

/** A token of a target's positions moving by this much since its refresh puts it first within the budget. */
const PRICE_MOVE = 0.1;

export type DueReason = 'every_slot' | 'new' | 'pinned' | 'max_age' | 'price_move' | 'expected_change';

export interface DueTarget {
  target: string;
  reason: DueReason;
}

/**
 * The targets due at `tickMs`, most urgent first: all of them when `slotBudget` covers them (the
 * largest λ·a² first), else,
 * of those with no job pending, the ones that must go, then the new ones and the largest λ·a² up to
 * the budget.
 */
export function selectDue(
  targets: readonly RefreshTarget[],
  slot: { tickMs: number; periodMs: number; slotBudget: number },
): DueTarget[] {
  if (slot.slotBudget >= targets.length) {
    // Every target, the ones where a change is most likely first: a slot's requests go out over
    // its period at the quota's pace, and the busy targets should not wait behind the dormant ones.
    return targets
      .map((target) => ({
        target: target.target,
        index: changeIndex(target, slot.tickMs),
        last: target.lastTickMs ?? 0,
      }))
      .sort((a, b) => b.index - a.index || a.last - b.last || (a.target < b.target ? -1 : 1))
      .map(({ target }) => ({ target, reason: 'every_slot' as const }));
  }
  const must: DueTarget[] = [];
  const ranked: { target: string; index: number }[] = [];
  for (const target of targets) {
    if (target.pending) continue;
    const reason = mustGo(target, slot);
    if (reason) must.push({ target: target.target, reason });
    else if (target.everyMs === null) ranked.push({ target: target.target, index: rankIndex(target, slot.tickMs) });
  }
  const left = Math.max(0, Math.floor(slot.slotBudget) - must.length);
  // New targets rank first (an infinite index), within the budget: a thousand added at once take
  // the next slots' budgets, not one slot's queue.
  ranked.sort((a, b) => b.index - a.index || (a.target < b.target ? -1 : 1));
  must.sort((a, b) => (a.reason === b.reason ? 0 : a.reason === 'max_age' ? -1 : 1));
  return [
    ...must,
    ...ranked.slice(0, left).map(({ target, index }) => ({
      target,
      reason:
        index === NEW
          ? ('new' as const)
          : index === PRICE_MOVED
            ? ('price_move' as const)
            : ('expected_change' as const),
    })),
  ];
}

const NEW = Number.POSITIVE_INFINITY;
const PRICE_MOVED = Number.MAX_VALUE;

/**
 * A slot's ranking: the never refreshed first, then those whose tokens moved by PRICE_MOVE since
 * their refresh (a Borrow's collateral falling toward its health limit: the answer would differ in
 * value and risk though not in substance), then λ·a².
 */
function rankIndex(target: RefreshTarget, tickMs: number): number {
  if (target.lastTickMs === null) return NEW;
  if ((target.priceMove ?? 0) >= PRICE_MOVE) return PRICE_MOVED;
  return changeIndex(target, tickMs);
}

/** Max ages and pins are held whatever the budget (refreshBudget reserves them first). */
function mustGo(target: RefreshTarget, slot: { tickMs: number; periodMs: number }): DueReason | undefined {
  if (target.lastTickMs === null) return undefined;
  const age = slot.tickMs - target.lastTickMs;
  // Due at the slot before the one at which it would be too late: a slot's jobs take up to a period to run.
  if (target.everyMs !== null && age + slot.periodMs / 2 >= target.everyMs) return 'pinned';
  if (age + 2 * slot.periodMs > target.maxAgeMs) return 'max_age';
  return undefined;
}

/** λ·a²: the expected delay (hours) piled up by changes since the last refresh, times 2. */
export function changeIndex(target: RefreshTarget, tickMs: number): number {
  if (target.lastTickMs === null) return Number.POSITIVE_INFINITY;
  const hours = Math.max(0, tickMs - target.lastTickMs) / 3_600_000;
  return target.ratePerHour * hours * hours;
}

export interface DatasetDemand {
  dataset: AddressDataset;
  targets: number;
  slotsPerHour: number;
  /** Refreshes per hour the max ages and pinned cadences need. */
  floorPerHour: number;
}

/**
 * The refreshes of the slot at `tickMs`: `perSlot` rounded so that consecutive slots add up to it
 * exactly (0.3 a slot: one slot in three or four has one), with no state kept between slots.
 */
export function slotShare(perSlot: number, tickMs: number, periodMs: number): number {
  const index = Math.floor(tickMs / periodMs);
  return Math.floor(perSlot * (index + 1) + 1e-9) - Math.floor(perSlot * index + 1e-9);
}

export interface DatasetBudget {
  dataset: AddressDataset;
  perHour: number;
  /** Refreshes per slot (perHour over the cron's slots per hour). */
  perSlot: number;
  /** Whether the budget covers every target every slot. */
  everySlot: boolean;
  /** Whether the max ages and pinned cadences cannot all be held. */
  unheld: boolean;
}

/**
 * The address datasets' refreshes per hour: `available` (the quota per hour less prices and
 * maintenance) less the headroom; floors first, then in `demands`' order (DATASET_PRIORITY).
 */
export function refreshBudget(available: number, demands: readonly DatasetDemand[]): DatasetBudget[] {
  let left = Math.max(0, available * (1 - REFRESH_HEADROOM));
  const floors = demands.reduce((sum, demand) => sum + Math.min(demand.floorPerHour, need(demand)), 0);
  const unheld = floors > left + 1e-9;
  const scale = unheld ? left / floors : 1;
  const perHour = demands.map((demand) => Math.min(demand.floorPerHour, need(demand)) * scale);
  left -= perHour.reduce((sum, value) => sum + value, 0);
  return demands.map((demand, i) => {
    const extra = Math.max(0, Math.min(need(demand) - perHour[i]!, left));
    left -= extra;
    const total = perHour[i]! + extra;
    return {
      dataset: demand.dataset,
      perHour: total,
      perSlot: demand.slotsPerHour > 0 ? total / demand.slotsPerHour : 0,
      everySlot: total >= need(demand) - 1e-9,
      unheld,
    };
  });
}

function need(demand: DatasetDemand): number {
  return demand.targets * demand.slotsPerHour;
}
