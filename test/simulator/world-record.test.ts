import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import {
  HABIT_MIX,
  simulatedPositions,
  startSimulator,
  walletHabit,
  worldChanges,
  type RunningSimulator,
} from '../../src/simulator/index.ts';
import { WorldClock } from '../../src/simulator/world-clock.ts';
import { call, json, TEST_KEY } from './simulator-requests.ts';

const DAY = 86_400_000;
const T = Date.parse('2026-03-01T00:00:00Z');
const ADDRESS = `0x${'ab'.repeat(32)}`;
const OTHER = '0x52908400098527886E0F7030069857D2E4169EE7';
const LIVING = { habits: true };

describe('the world clock', () => {
  it('runs at its rate from where it was set, stops at rate 0, and follows an offset at rate 1', () => {
    let real = 1_000_000;
    const clock = new WorldClock(() => real, 500);
    expect(clock.now()).toBe(1_000_500);
    clock.set({ worldTimeMs: T, rate: 3600 });
    real += 1000;
    expect(clock.state()).toEqual({ worldTimeMs: T + 3_600_000, rate: 3600 });
    clock.set({ rate: 0 });
    real += 5000;
    expect(clock.now()).toBe(T + 3_600_000);
    clock.set({ worldTimeMs: T });
    expect(clock.now()).toBe(T);
    clock.setOffset(-10);
    real += 7;
    expect(clock.state()).toEqual({ worldTimeMs: real - 10, rate: 1 });
    expect(() => clock.set({ rate: -1 })).toThrow(InvalidInputError);
    expect(() => clock.set({ worldTimeMs: 1.5 })).toThrow(InvalidInputError);
    expect(clock.state()).toEqual({ worldTimeMs: real - 10, rate: 1 });
  });
});

describe('the living world over HTTP', () => {
  let simulator: RunningSimulator;
  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: TEST_KEY, world: LIVING, clockRate: 0, clockOffsetMs: 0 });
  });
  afterAll(async () => {
    await simulator.close();
  });

  it('answers from world time alone: set by POST /_simulator/clock, the same answer each time it returns', async () => {
    const setClock = async (body: unknown) => json(await call(simulator, '/_simulator/clock', { body }));
    expect(await setClock({ worldTimeMs: T, rate: 0 })).toEqual({ worldTimeMs: T, rate: 0 });
    const positions = async () => (await call(simulator, `/v2/address/${ADDRESS}/positions`)).text;
    const atT = await positions();
    expect(JSON.parse(atT)).toEqual({ data: simulatedPositions(ADDRESS, T, undefined, LIVING) });
    await setClock({ worldTimeMs: T + 40 * DAY });
    expect(await positions()).not.toBe(atT);
    await setClock({ worldTimeMs: T });
    expect(await positions()).toBe(atT);
    expect(json(await call(simulator, '/_simulator/clock'))).toEqual({ worldTimeMs: T, rate: 0 });
    expect((await call(simulator, '/_simulator/clock', { body: { rate: -2 } })).status).toBe(400);
    expect((await call(simulator, '/_simulator/clock', { body: { offsetMs: 5, rate: 2 } })).status).toBe(400);
    expect((await call(simulator, '/_simulator/clock', { body: {} })).status).toBe(400);
    expect(simulator.clock()).toEqual({ worldTimeMs: T, rate: 0 });
  });

  it('serves the change record: GET /_simulator/changes', async () => {
    simulator.setClock({ worldTimeMs: T + 30 * DAY });
    const from = T - 30 * DAY;
    const answer = json<Record<string, unknown>>(
      await call(simulator, `/_simulator/changes?address=${ADDRESS}&dataset=positions&from=${from}`),
    );
    const habit = walletHabit(ADDRESS);
    expect(answer).toEqual({
      address: ADDRESS,
      dataset: 'positions',
      habit: habit.habit,
      meanIntervalMs: habit.positions.meanIntervalMs,
      from,
      to: T + 30 * DAY,
      changes: worldChanges(ADDRESS, 'positions', from, T + 30 * DAY, undefined, LIVING),
    });
    const iso = json<{ changes: number[] }>(
      await call(simulator, `/_simulator/changes?address=${OTHER}&dataset=nfts&from=2025-06-01T00:00:00Z&to=${T}`),
    );
    expect(iso.changes).toEqual(worldChanges(OTHER, 'nfts', Date.parse('2025-06-01T00:00:00Z'), T));
    for (const query of [
      `dataset=positions&from=${from}`,
      `address=${ADDRESS}&dataset=prices&from=${from}`,
      `address=${ADDRESS}&dataset=positions`,
      `address=${ADDRESS}&dataset=positions&from=yesterday`,
      `address=${ADDRESS}&dataset=positions&from=${T - 500 * DAY}&to=${T}`,
      `address=${ADDRESS}&dataset=positions&from=${T}&to=${from}`,
      `address=0x12&dataset=positions&from=${from}`,
    ]) {
      const bad = await call(simulator, `/_simulator/changes?${query}`);
      expect([bad.status, query]).toEqual([400, query]);
      expect(json<{ message: string }>(bad).message).toBeTruthy();
    }
  });

  it('serves the habits: GET with addresses in the query, POST with a list', async () => {
    const expected = { mix: HABIT_MIX, wallets: [walletHabit(ADDRESS), walletHabit(OTHER)] };
    expect(json(await call(simulator, `/_simulator/habits?address=${ADDRESS}&address=${OTHER}`))).toEqual(expected);
    expect(json(await call(simulator, '/_simulator/habits', { body: { addresses: [ADDRESS, OTHER] } }))).toEqual(
      expected,
    );
    expect(json(await call(simulator, '/_simulator/habits'))).toEqual({ mix: HABIT_MIX, wallets: [] });
    expect((await call(simulator, '/_simulator/habits', { body: { addresses: ADDRESS } })).status).toBe(400);
    expect((await call(simulator, '/_simulator/habits', { body: '{"addresses": [' })).status).toBe(400);
    expect((await call(simulator, '/_simulator/nothing')).status).toBe(404);
  });

  it('says the record needs the living world on a simulator without it', async () => {
    const epochs = await startSimulator({ apiKey: TEST_KEY });
    try {
      const answer = await call(epochs, `/_simulator/changes?address=${ADDRESS}&dataset=positions&from=${T}`);
      expect(answer.status).toBe(400);
      expect(json<{ message: string }>(answer).message).toMatch(/--habits/);
      expect((await call(epochs, '/_simulator/habits')).status).toBe(400);
    } finally {
      await epochs.close();
    }
  });
});
