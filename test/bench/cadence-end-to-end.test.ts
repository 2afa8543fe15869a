import { expect, inject, it } from 'vitest';
import { walletHabit, type HabitName } from '../../src/simulator/habits.ts';
import { runCadenceEndToEnd } from '../../bench/support/cadence-end-to-end.ts';
import { benchAddress } from '../../bench/support/scenario.ts';

// Issue 30's end-to-end check at a small scale: the real scheduler on a compressed clock, two worker
// processes and the simulator's living world, short of quota; each change's delay to the request that
// saw it, from the world's record (bench/support/cadence-end-to-end.ts; the full one:
// bench/tools/cadence-e2e.ts).
const MINUTE = 60_000;

/** The first `count` bench wallets of each habit. */
function walletsOf(counts: Partial<Record<HabitName, number>>): { wallet: string; habit: HabitName }[] {
  const found: { wallet: string; habit: HabitName }[] = [];
  const left = { ...counts };
  for (let i = 0; Object.values(left).some((n) => n! > 0); i += 1) {
    const wallet = benchAddress(i);
    const { habit } = walletHabit(wallet);
    if ((left[habit] ?? 0) > 0) {
      found.push({ wallet, habit });
      left[habit]! -= 1;
    }
  }
  return found;
}

it('refreshes where the world changes: the delays the virtual model predicts, within the quota', async () => {
  const chosen = walletsOf({ hourly: 12, daily: 8, bursty: 4, dormant: 8 });
  // 1 request a simulated minute, prices every 15 minutes: about 50 refreshes an hour for 32 wallets
  // whose every slot would take 128 (positions) and 32 (NFT holdings). A simulated minute lasts 40 real
  // ms (25 requests a second): at 25 ms a slow 2-vCPU machine fell behind the clock (its mean delays
  // 1.8 to 36 times the virtual model's, and 429s), which measures the machine, not the policy. The
  // last simulated day is measured; the 2.4 hours before it warm the change-rate estimates up.
  const result = await runCadenceEndToEnd(
    { adminUrl: inject('pgAdminUrl'), redisUrl: inject('redisUrl') },
    {
      wallets: chosen.map((entry) => entry.wallet),
      days: 1.1,
      realMsPerMinute: 40,
      quotaPerMinute: 1,
      tokens: 1,
      priceEveryMinutes: 15,
    },
  );
  const { endToEnd: e2e, virtual } = result;
  expect(e2e.statuses['429'] ?? 0).toBe(0);
  expect(e2e.changes).toBe(virtual.changes);
  expect(e2e.changes).toBeGreaterThan(50);
  // Every change seen within the max age (24 h).
  const delays = [...e2e.delaysByWallet.values()].flat();
  expect(Math.max(...delays)).toBeLessThanOrEqual(24 * 60 * MINUTE);
  expect(e2e.mean / virtual.mean).toBeGreaterThan(0.7);
  expect(e2e.mean / virtual.mean).toBeLessThan(1.3);
  // The quota went where the changes are: a busy wallet was asked far more often than a dormant one.
  const requestsOf = (habit: HabitName) => {
    const of = chosen.filter((entry) => entry.habit === habit);
    return of.reduce((sum, entry) => sum + e2e.requestsByWallet.get(entry.wallet)!, 0) / of.length;
  };
  expect(requestsOf('hourly')).toBeGreaterThan(3 * requestsOf('dormant'));
}, 180_000);
