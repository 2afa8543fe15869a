import { describe, expect, it } from 'vitest';
import {
  changeCondition,
  percentChange,
  reaches,
  staleCondition,
  type Condition,
} from '../../src/alerts/conditions.ts';
import { parseRules, type EpisodeRule, type PositionEventRule } from '../../src/alerts/rules.ts';
import {
  eventKey,
  planEpisodes,
  planPositionEvents,
  type AlertState,
  type PositionRow,
} from '../../src/alerts/transitions.ts';

const ADDRESS = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const rulesOf = (yaml: string) =>
  parseRules(`webhooks: [{ url: "https://hooks.example/x" }]\nrules:\n${yaml}`, 'test').rules;
const [health, cooled, quiet] = rulesOf(`
  - { id: health, kind: health_below, address: "${ADDRESS}", threshold: 1.2 }
  - { id: cooled, kind: health_below, address: "${ADDRESS}", threshold: 1.2, cooldown: 1h }
  - { id: quiet, kind: health_below, address: "${ADDRESS}", threshold: 1.2, send_resolved: false }
`) as EpisodeRule[];
const T = (minutes: number) => new Date(Date.parse('2026-11-21T12:00:00Z') + minutes * 60_000);

const condition = (subject: string, holds: boolean | undefined, minutes: number): Condition => ({
  subject,
  holds,
  tick: T(minutes),
  text: `${subject} ${holds}`,
  data: { minutes },
});

/** Runs evaluations one after the other, carrying the remembered states as the evaluator does. */
function run(rule: EpisodeRule, steps: { conditions: Condition[]; now: Date }[]) {
  const states = new Map<string, AlertState>();
  return steps.map(({ conditions, now }) => {
    const plan = planEpisodes(rule, conditions, [...states.values()], now);
    for (const state of plan.states) states.set(state.subject, state);
    return plan.events.map((event) => `${event.status} ${event.subject} ${event.text}`);
  });
}

describe('episodes', () => {
  it('fire once when a condition starts to hold, nothing while it holds, one resolved when it ends', () => {
    expect(
      run(health!, [
        { conditions: [condition('a', false, 0)], now: T(0) },
        { conditions: [condition('a', true, 15)], now: T(15) },
        { conditions: [condition('a', true, 30)], now: T(30) },
        { conditions: [condition('a', undefined, 45)], now: T(45) },
        { conditions: [condition('a', true, 60)], now: T(60) },
        { conditions: [condition('a', false, 75)], now: T(75) },
        { conditions: [condition('a', false, 90)], now: T(90) },
        { conditions: [condition('a', true, 105)], now: T(105) },
      ]),
    ).toEqual([
      [],
      ['firing a [health] a true'],
      [],
      [],
      [],
      ['resolved a [health] Resolved: a false'],
      [],
      ['firing a [health] a true'],
    ]);
  });

  it('key each episode apart, and its resolved event after its start', () => {
    const states: AlertState[] = [];
    const keys: string[] = [];
    for (const [holds, minutes] of [
      [true, 0],
      [false, 15],
      [true, 30],
    ] as const) {
      const plan = planEpisodes(health!, [condition('a', holds, minutes)], states, T(minutes));
      keys.push(...plan.events.map((event) => event.key));
      states.splice(0, states.length, ...plan.states);
    }
    expect(keys[1]).toBe(`${keys[0]}:resolved`);
    expect(keys[0]).toBe(eventKey('health', 'a', `start:${T(0).toISOString()}:after:`));
    expect(keys[2]).toBe(eventKey('health', 'a', `start:${T(30).toISOString()}:after:${keys[0]}`));
    expect(new Set(keys).size).toBe(3);
    // The same evaluation again (a crash before it was recorded): the same key.
    expect(planEpisodes(health!, [condition('a', true, 0)], [], T(0)).events[0]!.key).toBe(keys[0]);
  });

  it('resolve an episode whose subject is no longer observed (a closed position)', () => {
    expect(
      run(health!, [
        { conditions: [condition(`${ADDRESS}/p1`, true, 0), condition(`${ADDRESS}/p2`, false, 0)], now: T(0) },
        { conditions: [condition(`${ADDRESS}/p2`, false, 15)], now: T(15) },
      ]),
    ).toEqual([
      [`firing ${ADDRESS}/p1 [health] ${ADDRESS}/p1 true`],
      [`resolved ${ADDRESS}/p1 [health] Resolved: 0x7d20…b58e's position p1 no longer has a health factor (closed)`],
    ]);
  });

  it('start no episode within the cooldown after the last alert; one that still holds fires after it', () => {
    expect(
      run(cooled!, [
        { conditions: [condition('a', true, 0)], now: T(0) },
        { conditions: [condition('a', false, 10)], now: T(10) },
        { conditions: [condition('a', true, 20)], now: T(20) },
        { conditions: [condition('a', true, 50)], now: T(50) },
        { conditions: [condition('a', true, 70)], now: T(70) },
      ]),
    ).toEqual([
      ['firing a [cooled] a true'],
      ['resolved a [cooled] Resolved: a false'],
      [],
      [],
      ['firing a [cooled] a true'],
    ]);
  });

  it('end episodes silently without send_resolved', () => {
    expect(
      run(quiet!, [
        { conditions: [condition('a', true, 0)], now: T(0) },
        { conditions: [condition('a', false, 15)], now: T(15) },
        { conditions: [condition('a', true, 30)], now: T(30) },
      ]),
    ).toEqual([['firing a [quiet] a true'], [], ['firing a [quiet] a true']]);
  });
});

describe('position events', () => {
  const [opened, closed] = rulesOf(`
  - { id: opened, kind: position_opened, address: "${ADDRESS}" }
  - { id: closed, kind: position_closed, address: "${ADDRESS}" }
`) as PositionEventRule[];
  const row = (positionId: string, firstSeen: number, closedAt: number | null): PositionRow => ({
    owner: ADDRESS,
    positionId,
    parentPositionId: null,
    type: 'Borrow',
    chain: 'SUI',
    protocolId: 'scallop',
    firstSeenAt: T(firstSeen),
    closedAt: closedAt === null ? null : T(closedAt),
  });
  const rows = [row('old', 0, null), row('new', 30, null), row('gone', 0, 30), row('gone-before', 0, 15)];

  it('set the baseline at the first refresh seen, firing nothing; then fire what changed after it', () => {
    expect(planPositionEvents(opened!, [], undefined, null)).toEqual({ events: [], states: [] });
    const first = planPositionEvents(opened!, [], undefined, T(15));
    expect(first.events).toEqual([]);
    expect(first.states).toMatchObject([{ subject: ADDRESS, baseline: T(15), episodeOpen: false }]);
    const state = first.states[0]!;
    const openedNow = planPositionEvents(opened!, rows, state, T(30));
    expect(openedNow.events.map((event) => `${event.subject} ${event.text}`)).toEqual([
      `${ADDRESS}/new [opened] Position new (Borrow, scallop, SUI) of 0x7d20…b58e opened at 2026-11-21 12:30 UTC`,
    ]);
    const closedNow = planPositionEvents(closed!, rows, state, T(30));
    expect(closedNow.events.map((event) => event.subject)).toEqual([`${ADDRESS}/gone`]);
    expect(closedNow.events[0]!.key).toBe(eventKey('closed', `${ADDRESS}/gone`, `closed:${T(30).toISOString()}`));
    expect(closedNow.states).toEqual([]);
  });
});

describe('conditions', () => {
  it('compute changes exactly and compare them with the percent in its direction', () => {
    expect(percentChange('100', '105')!.toString()).toBe('5');
    expect(percentChange('3', '2.85')!.toString()).toBe('-5');
    expect(percentChange(null, '1')).toBeUndefined();
    expect(percentChange('0', '1')).toBeUndefined();
    const five = percentChange('100', '105')!;
    const minusFive = percentChange('100', '95')!;
    expect([reaches(five, 5, 'any'), reaches(five, 5, 'up'), reaches(five, 5, 'down')]).toEqual([true, true, false]);
    expect([reaches(minusFive, 5, 'any'), reaches(minusFive, 5, 'up'), reaches(minusFive, 5, 'down')]).toEqual([
      true,
      false,
      true,
    ]);
    expect(reaches(percentChange('100', '104.99')!, 5, 'any')).toBe(false);
  });

  it('say what a price rule sees, and cannot tell without an earlier price', () => {
    const [rule] = rulesOf('  - { id: sui, kind: price_change, token: "0x2::sui::SUI", window: 1h, percent: 5 }');
    const seen = { symbol: 'SUI', value: '3.15', at: T(60), refValue: '3', refAt: T(0) };
    const moved = changeCondition(rule as never, seen);
    expect(moved).toMatchObject({ holds: true, tick: T(60), data: { change_percent: 5, reference_value: '3' } });
    expect(moved.text).toBe('SUI rose 5.00 % in 1h, from 3 to 3.15 (price time 2026-11-21 13:00 UTC); threshold ±5 %');
    expect(changeCondition(rule as never, { ...seen, refValue: null, refAt: null })).toMatchObject({
      holds: undefined,
    });
    expect(changeCondition(rule as never, undefined)).toMatchObject({
      holds: undefined,
      text: '0x2::sui::SUI has no stored price yet',
    });
  });

  it('say what portfolio and floor rules see, in their units', () => {
    const [portfolio, floor] = rulesOf(`
  - { id: pf, kind: portfolio_change, address: "${ADDRESS}", window: 1d, percent: 10, direction: down }
  - { id: fl, kind: nft_floor_change, collection: "0xabc::nft::Ghost", window: 1d, percent: 20 }
`);
    const seen = { value: '1200.123', at: T(60), refValue: '1300', refAt: T(0) };
    expect(changeCondition(portfolio as never, seen).text).toBe(
      'Portfolio of 0x7d20…b58e fell 7.68 % in 1d, from 1,300.00 to 1,200.12 USD (as of 2026-11-21 13:00 UTC); threshold -10 %',
    );
    expect(changeCondition(floor as never, { ...seen, name: 'Ghosts', nativeSymbol: 'SUI' })).toMatchObject({
      holds: false,
      text: 'Floor of Ghosts fell 7.68 % in 1d, from 1,300 to 1,200.123 SUI (as of 2026-11-21 13:00 UTC); threshold ±20 %',
      data: { collection: '0xabc::nft::Ghost', collection_name: 'Ghosts', change_percent: -7.6828 },
    });
    expect(changeCondition(floor as never, undefined).text).toBe(
      'Floor of 0xabc::nft::Ghost has no stored floor price',
    );
  });

  it('call a dataset stale past its max age, or when it never succeeded', () => {
    const [rule] = rulesOf('  - { id: st, kind: stale, dataset: prices, max_age: 10m }');
    expect(staleCondition(rule as never, T(0), T(10))).toMatchObject({ holds: false });
    expect(staleCondition(rule as never, T(0), T(11))).toMatchObject({
      holds: true,
      tick: T(0),
      text: 'prices is stale: its newest successful tick, 2026-11-21 12:00 UTC, is 11 min 0 s old (max age 10m)',
      data: { age_seconds: 660, newest_tick: T(0).toISOString() },
    });
    expect(staleCondition(rule as never, null, T(0))).toMatchObject({
      holds: true,
      tick: null,
      text: 'prices has never been refreshed successfully (max age 10m)',
    });
  });
});
