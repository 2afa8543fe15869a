import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import { HABIT_MIX, NFT_SLOWDOWN, walletHabit, type HabitName } from '../../src/simulator/index.ts';

const addressNo = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;

describe('walletHabit', () => {
  it('is a function of address and seed, whatever the spelling of the address', () => {
    const evm = '0x52908400098527886E0F7030069857D2E4169EE7';
    expect(walletHabit(evm)).toEqual(walletHabit(evm.toLowerCase()));
    expect(walletHabit(addressNo(1))).toEqual(walletHabit(addressNo(1)));
    const habits = (seed: string) => Array.from({ length: 50 }, (_, i) => walletHabit(addressNo(i), seed).habit);
    expect(habits('other-seed')).not.toEqual(habits('chaintap'));
  });

  it('draws the documented mix, each mean interval within its habit range, NFTs five times slower', () => {
    const count: Record<HabitName, number> = { dormant: 0, daily: 0, hourly: 0, bursty: 0 };
    const outside: unknown[] = [];
    const wallets = 10_000;
    for (let i = 0; i < wallets; i++) {
      const habit = walletHabit(addressNo(i));
      count[habit.habit]++;
      const [low, high] = HABIT_MIX.find((entry) => entry.habit === habit.habit)!.rangeMs;
      const { positions, nfts } = habit;
      // A bursty wallet's bursts start cycleMs ± startSpreadMs apart: its quiet spells' range.
      const [first, last] =
        positions.kind === 'poisson'
          ? [positions.meanIntervalMs, positions.meanIntervalMs]
          : [positions.cycleMs - positions.startSpreadMs, positions.cycleMs + positions.startSpreadMs];
      const slower = Math.abs(nfts.meanIntervalMs / positions.meanIntervalMs - NFT_SLOWDOWN) < 1e-3;
      if (first < low - 1 || last > high + 1 || !slower) outside.push(habit);
    }
    expect(outside).toEqual([]);
    for (const { habit, share } of HABIT_MIX) expect(Math.abs(count[habit] / wallets - share)).toBeLessThan(0.015);
  });

  it('rejects an address of no known format', () => {
    expect(() => walletHabit('0x12')).toThrow(InvalidInputError);
  });
});
