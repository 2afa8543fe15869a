import { expect } from 'vitest';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { runBackfill } from '../../src/cli/backfill-prices.ts';
import { runCycle } from '../../src/cli/run-cycle.ts';
import { createPipelineHarness, WORLD_TIME, type PipelineHarness, cycleDeps } from '../support/pipeline.ts';

export const HOUR = 3_600_000;
export const ADDRESS = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
/** Watched too, never refreshed: its report is all gaps. */
export const IDLE_ADDRESS = '0x1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809';
export const SUI = `0x${'0'.repeat(63)}2::sui::SUI`;
export const USDC = `0x${'d'.repeat(64)}::usdc::USDC`;
export const CETUS = `0x${'e'.repeat(64)}::cetus::CETUS`;
export const TOKENS = [SUI, USDC, CETUS];
/** The ticks of the cycles run, each with the simulated world's clock at that time. */
export const CYCLE_TICKS = [-6, -4, -2, 0].map((hours) => new Date(WORLD_TIME + hours * HOUR));

/**
 * A database filled the way chaintap fills it: two days of hourly prices backfilled through the
 * simulated upstream, then full cycles (prices, positions, NFTs; by default four, two hours apart),
 * the world's clock moving with them so that values change from cycle to cycle.
 */
export async function createReportWorld(
  settings: { cycleTicks?: Date[]; options?: Record<string, string> } = {},
): Promise<PipelineHarness> {
  const harness = await createPipelineHarness({ options: { LOG_LEVEL: 'warn', ...settings.options } });
  await addWatchedTokens(harness.database, TOKENS);
  await addWatchedAddresses(harness.database, [ADDRESS], { includePnl: true });
  const deps = cycleDeps(harness);
  const backfill = await runBackfill(deps, {
    from: new Date(WORLD_TIME - 48 * HOUR),
    to: new Date(WORLD_TIME - 7 * HOUR),
    intervalMs: HOUR,
  });
  expect(backfill.complete).toBe(true);
  for (const tick of settings.cycleTicks ?? CYCLE_TICKS) {
    harness.simulator.setClockOffset(tick.getTime() - WORLD_TIME);
    const outcome = await runCycle(deps, { tick, datasets: ['prices', 'positions', 'nfts'] });
    expect(outcome.complete).toBe(true);
  }
  harness.simulator.setClockOffset(0);
  // Watched only after the cycles, so never refreshed.
  await addWatchedAddresses(harness.database, [IDLE_ADDRESS], {});
  return harness;
}
