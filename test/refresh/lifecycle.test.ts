import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses } from '../../src/db/index.ts';
import { nftJobs, positionJobs } from '../../src/scheduler/job-builders.ts';
import { produceTick } from '../../src/scheduler/producer.ts';
import { seedFromStoredRefreshes } from '../../src/scheduler/refresh-slot.ts';
import { loadTargetStates } from '../../src/db/stores/refresh-targets.ts';
import { targetsOf } from '../../src/refresh/lifecycle.ts';
import { selectDue } from '../../src/refresh/policy.ts';
import { startScriptedPipeline, type ScriptedPipeline } from '../support/scripted-upstream.ts';
import { producerDeps } from '../support/pipeline.ts';

// Issue 30: a refresh recorded with its answer, compared in substance with the previous one, and the
// scheduler's slots enqueueing the targets the policy picks, through the real worker and Postgres.
const ANSWER = readFileSync(
  new URL('../fixtures/normalize/positions-liquidity-pool/response.json', import.meta.url),
  'utf8',
);
const NFTS = readFileSync(new URL('../fixtures/real-answers/nfts-data-wrapped.json', import.meta.url), 'utf8');
const TICK = Date.parse('2026-11-21T12:00:00Z');
const MINUTE = 60_000;
const WALLET = `0x${'a1'.repeat(32)}`;
const at = (minutes: number) => new Date(TICK + minutes * MINUTE);
const watch = { address: WALLET, chain: null, protocols: null, nftChain: 'ALL', includePnl: false };

let pipeline: ScriptedPipeline;
beforeAll(async () => {
  pipeline = await startScriptedPipeline({ UPSTREAM_RATE: '10/s' });
});
afterAll(async () => pipeline?.close());

const row = async (dataset: string) => {
  const [found] = await pipeline.harness.database.sql<
    {
      last_tick: Date;
      observations: number[][];
      compared: number;
      changes: number;
      changed_at: Date | null;
      change_rate_per_hour: number;
    }[]
  >`select last_tick, observations, compared, changes, changed_at, change_rate_per_hour from refresh_targets
    where dataset = ${dataset} and target = ${WALLET}`;
  return found;
};

describe('a target refresh', () => {
  it('is recorded in the job: compared with the previous answer in substance, an older tick not compared', async () => {
    const run = async (minutes: number, body: string) => {
      pipeline.answer('positions', body);
      const job = positionJobs([watch], at(minutes), false)[0]!;
      await expect(pipeline.runJob('positions', job)).resolves.toMatchObject({ state: 'completed' });
    };
    await run(0, ANSWER);
    expect(await row('positions')).toMatchObject({ last_tick: at(0), observations: [], compared: 0, changes: 0 });
    // Prices and values moved, amounts did not: no change.
    await run(15, ANSWER.replaceAll('"value": 4866.4', '"value": 5100.1'));
    expect(await row('positions')).toMatchObject({
      compared: 1,
      changes: 0,
      observations: [[(TICK + 15 * MINUTE) / 1000, 900, 0]],
    });
    // A deposit: the SUI put in up 50 %.
    await run(45, ANSWER.replaceAll('"amount": 1520.75', '"amount": 2281.125'));
    const changed = await row('positions');
    expect(changed).toMatchObject({ compared: 2, changes: 1, changed_at: at(45) });
    expect(changed!.observations.at(-1)).toEqual([(TICK + 45 * MINUTE) / 1000, 1800, 1]);
    // The tick of 30 minutes finishing after the one of 45: what it saw is out of date.
    await run(30, ANSWER);
    expect(await row('positions')).toMatchObject({ last_tick: at(45), compared: 2, changes: 1 });
    // Two positions opened since: one refresh that saw two changes (the estimator reads the count).
    const deposited = JSON.parse(ANSWER.replaceAll('"amount": 1520.75', '"amount": 2281.125')) as {
      data: { positionId: string }[];
    };
    const pool = deposited.data[0]!;
    deposited.data.push({ ...pool, positionId: '0xb0b1' }, { ...pool, positionId: '0xb0b2' });
    await run(60, JSON.stringify(deposited));
    const opened = await row('positions');
    expect(opened).toMatchObject({ compared: 3, changes: 2, changed_at: at(60) });
    expect(opened!.observations.at(-1)).toEqual([(TICK + 60 * MINUTE) / 1000, 900, 2]);

    const metrics = await pipeline.harness.context.metrics.refreshes.get();
    const byResult = Object.fromEntries(metrics.values.map((value) => [value.labels.result, value.value]));
    expect(byResult).toEqual({ not_compared: 2, unchanged: 1, changed: 2 });
  });

  it('of NFT holdings is recorded too', async () => {
    pipeline.answer('nfts', NFTS);
    for (const minutes of [0, 60]) {
      const [job] = nftJobs([watch], at(minutes));
      await expect(pipeline.runJob('nfts', job!)).resolves.toMatchObject({ state: 'completed' });
    }
    expect(await row('nfts')).toMatchObject({ last_tick: at(60), compared: 1, changes: 0 });
  });
});

describe("the scheduler's slots", () => {
  it('enqueue by the policy when the quota is short, every target when it is not', async () => {
    const { harness } = pipeline;
    const others = Array.from({ length: 30 }, (_, i) => `0x${(i + 16).toString(16).padStart(2, '0').repeat(32)}`);
    await addWatchedAddresses(harness.database, [WALLET, ...others], { datasets: ['positions'] });
    const deps = producerDeps(harness);
    // At 1/min: what the pacer sends of 60 req/h (/ 1.04) less maintenance and the headroom, 55.9, 13.98 a slot.
    const rate = { ...deps.context.options.UPSTREAM_RATE, rps: 1 / 60 };
    const short = { ...deps, context: { ...deps.context, options: { ...deps.context.options, UPSTREAM_RATE: rate } } };
    const first = await produceTick(short, 'positions', at(60), { select: 'due' });
    // The never refreshed go first; this wallet, refreshed 15 minutes ago, waits.
    expect(first.jobIds.length).toBeGreaterThanOrEqual(13);
    expect(first.jobIds.length).toBeLessThanOrEqual(14);
    expect(first.jobIds.some((id) => id.includes(WALLET))).toBe(false);
    // The next slot chooses others: the first slot's jobs are still to run.
    const second = await produceTick(short, 'positions', at(75), { select: 'due' });
    expect(first.jobs + second.jobs).toBeGreaterThanOrEqual(27);
    const targetOf = (id: string) => id.split('-')[1];
    expect(second.jobIds.map(targetOf).filter((target) => first.jobIds.map(targetOf).includes(target))).toEqual([]);
    expect(second.superseded).toBe(0);
    // At 10/s: every target every slot, as a fixed cadence (the waiting jobs replaced by the newer tick).
    const spare = await produceTick(deps, 'positions', at(90), { select: 'due' });
    expect(spare.jobs).toBe(31);
    // run-once and tests' ticks: every target.
    expect((await produceTick(short, 'positions', at(105))).jobs).toBe(31);
    // Not run: gone, so that the next test's jobs do not wait behind them at the quota's pace.
    await harness.queues.positions.obliterate({ force: true });
  });
});

describe('an installation that ran before the refresh policy', () => {
  it('starts from what its stored snapshots show', async () => {
    const { harness } = pipeline;
    const wallet = `0x${'c3'.repeat(32)}`;
    await addWatchedAddresses(harness.database, [wallet], { datasets: ['positions'] });
    const deposit = ANSWER.replaceAll('"amount": 1520.75', '"amount": 2281.125');
    for (const [minutes, body] of [
      [0, ANSWER],
      [15, ANSWER],
      [30, deposit],
      [45, deposit],
      [60, ANSWER],
    ] as const) {
      pipeline.answer('positions', body);
      const job = positionJobs([{ ...watch, address: wallet }], at(minutes), false)[0]!;
      await expect(pipeline.runJob('positions', job)).resolves.toMatchObject({ state: 'completed' });
    }
    // As before the policy: snapshots and a watermark, no refresh_targets row.
    await harness.database.sql`delete from refresh_targets where target = ${wallet}`;
    expect(await seedFromStoredRefreshes(harness.database, 'positions')).toBeGreaterThanOrEqual(1);
    const [seeded] = await harness.database.sql<
      {
        last_tick: Date;
        compared: number;
        changes: number;
        changed_at: Date;
        substance: unknown;
        observations: number[][];
      }[]
    >`select last_tick, compared, changes, changed_at, substance, observations from refresh_targets
      where dataset = 'positions' and target = ${wallet}`;
    expect(seeded).toMatchObject({ last_tick: at(60), compared: 4, changes: 2, changed_at: at(60), substance: null });
    expect(seeded!.observations.map((observation) => observation[2])).toEqual([0, 1, 0, 1]);
    // Seeded once: a second call finds nothing to do for it.
    await seedFromStoredRefreshes(harness.database, 'positions');
    const [again] = await harness.database.sql<{ compared: number }[]>`
      select compared from refresh_targets where dataset = 'positions' and target = ${wallet}`;
    expect(again!.compared).toBe(4);
  });
});

describe('a price move', () => {
  it("puts an address whose tokens' prices moved since its refresh first within a short budget", async () => {
    const { harness } = pipeline;
    const EVM = readFileSync(new URL('../fixtures/harvested-prices/positions-evm.json', import.meta.url), 'utf8');
    const [held, other, quiet] = [`0x${'d4'.repeat(20)}`, `0x${'e5'.repeat(20)}`, `0x${'f6'.repeat(20)}`];
    await addWatchedAddresses(harness.database, [held, quiet], { datasets: ['positions'] });
    const run = async (address: string, minutes: number, body: string) => {
      pipeline.answer('positions', body);
      const job = positionJobs([{ ...watch, address }], at(minutes), false)[0]!;
      await expect(pipeline.runJob('positions', job)).resolves.toMatchObject({ state: 'completed' });
    };
    await run(held, 0, EVM);
    await run(quiet, 0, '{"data":[]}');
    // An hour later another wallet's answer carries WETH 20 % lower: the price chaintap now holds.
    const later = EVM.replaceAll('1795262400', '1795266000')
      .replaceAll('1795262340', '1795265940')
      .replaceAll('3401.66853342', '2721.33482674');
    await run(other, 60, later);
    const states = await loadTargetStates(harness.database, 'positions', { priceMoves: true });
    expect(states.find((state) => state.target === held)?.priceMove).toBeCloseTo(0.2, 3);
    expect(states.find((state) => state.target === quiet)?.priceMove).toBeNull();
    // Read only for a slot's choice: what the quota buys (status, /metrics) does not look prices up.
    const plain = await loadTargetStates(harness.database, 'positions');
    expect(plain.find((state) => state.target === held)?.priceMove).toBeNull();
    // One refresh in the slot: the address whose collateral moved, before the quiet one.
    const due = selectDue(
      targetsOf(
        states.filter((state) => [held, quiet].includes(state.target)),
        86_400_000,
      ),
      {
        tickMs: at(75).getTime(),
        periodMs: 15 * MINUTE,
        slotBudget: 1,
      },
    );
    expect(due).toEqual([{ target: held, reason: 'price_move' }]);
  });
});
