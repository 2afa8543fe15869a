import { describe, expect, it } from 'vitest';
import { changeIndex, refreshBudget, selectDue, slotShare, type RefreshTarget } from '../../src/refresh/policy.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const TICK = Date.parse('2026-11-21T12:00:00Z');
const SLOT = { tickMs: TICK, periodMs: 15 * MINUTE };
const target = (name: string, settings: Partial<RefreshTarget> = {}): RefreshTarget => ({
  target: name,
  lastTickMs: TICK - HOUR,
  ratePerHour: 0.01,
  maxAgeMs: 24 * HOUR,
  everyMs: null,
  ...settings,
});

describe('selectDue', () => {
  const targets = [target('a'), target('b', { ratePerHour: 1 }), target('c', { lastTickMs: TICK - 10 * HOUR })];

  it('with quota to spare: every target every slot, as a fixed cadence', () => {
    // The likeliest to have changed first (rate x age²: b 1, c 1, a 0.01; ties: the stalest first).
    expect(selectDue(targets, { ...SLOT, slotBudget: 3 }).map((due) => due.target)).toEqual(['c', 'b', 'a']);
    expect(selectDue(targets, { ...SLOT, slotBudget: 10 }).every((due) => due.reason === 'every_slot')).toBe(true);
  });

  it('with the quota short: the largest expected delay piled up (rate x age²) first', () => {
    // b: 1/h x 1 h² = 1; c: 0.01 x 100 = 1.0 (ties broken by name); a: 0.01.
    expect(selectDue(targets, { ...SLOT, slotBudget: 2 })).toEqual([
      { target: 'b', reason: 'expected_change' },
      { target: 'c', reason: 'expected_change' },
    ]);
    expect(selectDue(targets, { ...SLOT, slotBudget: 1 }).map((due) => due.target)).toEqual(['b']);
  });

  it('one near its max age and a pinned one due go whatever the budget; a new one first within it', () => {
    const due = selectDue(
      [
        target('busy', { ratePerHour: 5 }),
        target('new', { lastTickMs: null }),
        // 23.6 h old: two slots more would pass its max age of 24 h.
        target('old', { lastTickMs: TICK - 23.6 * HOUR }),
        target('pinned', { everyMs: 15 * MINUTE, lastTickMs: TICK - 15 * MINUTE }),
        target('pinned-not-yet', { everyMs: HOUR, lastTickMs: TICK - 15 * MINUTE, ratePerHour: 100 }),
      ],
      { ...SLOT, slotBudget: 0 },
    );
    expect(due).toEqual([
      { target: 'old', reason: 'max_age' },
      { target: 'pinned', reason: 'pinned' },
    ]);
    const withBudget = selectDue(
      [target('busy', { ratePerHour: 5 }), target('new', { lastTickMs: null }), target('quiet')],
      { ...SLOT, slotBudget: 2 },
    );
    expect(withBudget).toEqual([
      { target: 'new', reason: 'new' },
      { target: 'busy', reason: 'expected_change' },
    ]);
  });

  it('spaces refreshes by 1/√λ over many slots (the square-root rule)', () => {
    // Ten targets of each rate, 16, 4, 1 and 0.25 per hour, one refresh per slot of 15 minutes.
    const rates = [16, 4, 1, 0.25];
    let state = rates.flatMap((rate) =>
      Array.from({ length: 10 }, (_, i) => target(`${rate}/${i}`, { ratePerHour: rate, lastTickMs: TICK })),
    );
    const counts = new Map<number, number>();
    const slots = 4000;
    for (let slot = 1; slot <= slots; slot += 1) {
      const tickMs = TICK + slot * SLOT.periodMs;
      const [due] = selectDue(state, { tickMs, periodMs: SLOT.periodMs, slotBudget: 1 });
      const rate = Number(due!.target.split('/')[0]);
      counts.set(rate, (counts.get(rate) ?? 0) + 1);
      state = state.map((t) => (t.target === due!.target ? { ...t, lastTickMs: tickMs } : t));
    }
    // Refreshes in proportion to √λ: 4 : 2 : 1 : 0.5 of 7.5.
    for (const rate of rates) expect(counts.get(rate)! / slots).toBeCloseTo(Math.sqrt(rate) / 7.5, 1);
  });

  it('a dormant target whose estimate rose after a wake overtakes the quiet ones', () => {
    const quiet = Array.from({ length: 5 }, (_, i) =>
      target(`quiet-${i}`, { ratePerHour: 0.002, lastTickMs: TICK - 6 * HOUR }),
    );
    const woke = target('woke', { ratePerHour: 0.8, lastTickMs: TICK - 30 * MINUTE });
    expect(changeIndex(woke, TICK)).toBeGreaterThan(changeIndex(quiet[0]!, TICK));
    expect(selectDue([...quiet, woke], { ...SLOT, slotBudget: 1 })).toEqual([
      { target: 'woke', reason: 'expected_change' },
    ]);
  });
});

describe('a slot', () => {
  it('passes over a target whose job of a recent slot is still to run', () => {
    const due = selectDue([target('waiting', { ratePerHour: 9, pending: true }), target('next')], {
      ...SLOT,
      slotBudget: 1,
    });
    expect(due).toEqual([{ target: 'next', reason: 'expected_change' }]);
  });

  it('takes its share of a fractional budget so that slots add up to it exactly', () => {
    const shares = Array.from({ length: 96 }, (_, i) => slotShare(0.3, TICK + i * SLOT.periodMs, SLOT.periodMs));
    expect(shares.reduce((sum, share) => sum + share, 0)).toBeGreaterThanOrEqual(28);
    expect(shares.reduce((sum, share) => sum + share, 0)).toBeLessThanOrEqual(29);
    expect(new Set(shares)).toEqual(new Set([0, 1]));
    expect(slotShare(14.55, TICK, SLOT.periodMs)).toBeGreaterThanOrEqual(14);
  });
});

describe('refreshBudget', () => {
  const demands = [
    { dataset: 'positions' as const, targets: 2000, slotsPerHour: 4, floorPerHour: 2000 / 23.5 },
    { dataset: 'nfts' as const, targets: 2000, slotsPerHour: 1, floorPerHour: 2000 / 22 },
  ];

  it('gives every dataset its max ages first, then the rest in priority order', () => {
    const [positions, nfts] = refreshBudget(2000, demands);
    expect(nfts!.perHour).toBeCloseTo(2000 / 22, 6);
    expect(positions!.perHour).toBeCloseTo(2000 * 0.97 - 2000 / 22, 6);
    expect(positions!.everySlot).toBe(false);
    expect(positions!.perSlot).toBeCloseTo(positions!.perHour / 4, 6);
    expect(positions!.unheld).toBe(false);
  });

  it('covers every target every slot when the quota allows, and says when max ages cannot be held', () => {
    expect(refreshBudget(20_000, demands).every((budget) => budget.everySlot)).toBe(true);
    const short = refreshBudget(100, demands);
    expect(short.every((budget) => budget.unheld)).toBe(true);
    expect(short.reduce((sum, budget) => sum + budget.perHour, 0)).toBeCloseTo(97, 6);
  });
});
