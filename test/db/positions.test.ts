import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction, writePositions } from '../../src/db/index.ts';
import type { PositionAmountRow, PositionFarmingRow, PositionSnapshotRow } from '../../src/db/schema/rows.ts';
import { normalizePositions } from '../../src/normalize/index.ts';
import { simulatedPositions } from '../../src/simulator/index.ts';
import { positionsResponse } from '../../src/upstream/schemas.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commit, OWNER, positionRows, snapshotOf, wirePosition } from './job-helpers.ts';

const tick = (n: number) => new Date(Date.UTC(2026, 10, 21, 12, 15 * n));

describe('writePositions', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const write = (at: Date, positions: unknown[], complete = true) =>
    commit(database, 'positions', OWNER, at, (tx) =>
      writePositions(tx, positionRows(positions, at), { owner: OWNER, snapshotAt: at, complete }),
    );
  const state = async () => database.sql`
    select position_id, first_seen_at, last_seen_at, closed_at from positions where owner = ${OWNER} order by position_id`;
  const TABLES = ['protocols', 'positions', 'position_tokens', 'position_snapshot_points', 'position_refreshes'];
  const VIEWS = ['position_snapshots', 'position_amounts', 'position_farming'];
  const everything = async () => [
    ...(await Promise.all(TABLES.map((table) => snapshotOf(database, table, { versions: true })))).flat(),
    ...(await Promise.all(VIEWS.map((view) => snapshotOf(database, view)))).flat(),
  ];

  it('writes positions, snapshots with exact totals, amounts and farming', async () => {
    const result = await write(tick(0), [
      wirePosition('a', { input: '100.1', current: 95, yieldValue: '0.000000001', collected: 7 }),
      wirePosition('b', { input: 10, current: '123456789012.12346' }),
    ]);
    expect(result.byTable).toEqual({
      protocols: 1,
      positions: 2,
      position_tokens: 1,
      position_snapshots: 2,
      position_amounts: 6,
      position_farming: 2,
      position_refreshes: 1,
    });
    const [snapshot] = await database.sql`
      select input_value, yield_collected_value, current_value, current_yield_value from position_snapshots where position_id = 'a'`;
    expect(snapshot).toEqual({
      input_value: '100.1',
      yield_collected_value: '7',
      current_value: '95',
      current_yield_value: '0.000000001',
    });
    const [farming] =
      await database.sql`select base_apr, rewards_apr, rewards from position_farming where position_id = 'a'`;
    expect(farming).toEqual({ base_apr: '0.1', rewards_apr: '0.02', rewards: [{ amount: 1 }] });
  });

  it('changes nothing when the same tick is written twice', async () => {
    const before = await everything();
    const again = await write(tick(0), [
      wirePosition('a', { input: '100.1', current: 95, yieldValue: '0.000000001', collected: 7 }),
      wirePosition('b', { input: 10, current: '123456789012.12346' }),
    ]);
    expect(again.byTable).toEqual({});
    expect(await everything()).toEqual(before);
  });

  it('closes a position an unfiltered refresh no longer returns, and opens it again when it comes back', async () => {
    await write(tick(1), [wirePosition('a', { input: 1, current: 1 })]);
    expect(await state()).toEqual([
      { position_id: 'a', first_seen_at: tick(0), last_seen_at: tick(1), closed_at: null },
      { position_id: 'b', first_seen_at: tick(0), last_seen_at: tick(0), closed_at: tick(1) },
    ]);
    await write(tick(2), [wirePosition('a', { input: 1, current: 1 }), wirePosition('b', { input: 1, current: 1 })]);
    expect((await state())[1]).toEqual({
      position_id: 'b',
      first_seen_at: tick(0),
      last_seen_at: tick(2),
      closed_at: null,
    });
  });

  it('never closes on a filtered refresh', async () => {
    await write(tick(3), [wirePosition('a', { input: 1, current: 1 })], false);
    expect((await state())[1]!.closed_at).toBeNull();
  });

  it('ignores the history of an older tick arriving late', async () => {
    await write(tick(5), [wirePosition('a', { input: 1, current: 1 }), wirePosition('b', { input: 1, current: 1 })]);
    const before = await state();
    // Tick 4 (retried late) did not return b: b was seen at 5, so it stays open; a's last_seen stays 5.
    await write(tick(4), [wirePosition('a', { input: 1, current: 1 })]);
    expect(await state()).toEqual(before);
    await expect(
      database.sql`select count(*)::int as n from position_snapshots where snapshot_at = ${tick(4)}`,
    ).resolves.toEqual([{ n: 1 }]);
  });

  it('replaces a tick rewritten with a different answer: shorter lists, lost positions', async () => {
    await write(tick(6), [
      wirePosition('a', { input: 1, current: 1, collected: 1 }),
      wirePosition('b', { input: 1, current: 1 }),
    ]);
    await write(tick(6), [wirePosition('a', { input: 2, current: 3 })]);
    const amounts = await database.sql`
      select kind::text, idx, value from position_amounts where snapshot_at = ${tick(6)} order by 1, 2`;
    expect(amounts).toEqual(
      [
        { kind: 'input', idx: 0, value: '2' },
        { kind: 'current_token', idx: 0, value: '3' },
      ].sort((x, y) => x.kind.localeCompare(y.kind)),
    );
    await expect(
      database.sql`select position_id from position_snapshots where snapshot_at = ${tick(6)}`,
    ).resolves.toEqual([{ position_id: 'a' }]);
    expect((await state())[1]!.closed_at).toEqual(tick(6));
  });

  it('keeps unknown fields of a variant in extra', async () => {
    await write(tick(7), [
      wirePosition(
        'a',
        { input: 1, current: 1 },
        { leverage: 5, meta: { protocol: { protocol: 'cetus' }, tags: ['x'] } },
      ),
    ]);
    const [row] =
      await database.sql`select extra from position_snapshots where position_id = 'a' and snapshot_at = ${tick(7)}`;
    expect(row).toEqual({ extra: { leverage: 5, meta: { tags: ['x'] } } });
  });

  it('lets concurrent jobs of a month without partitions create them', async () => {
    const old = new Date('2015-05-05T00:00:00Z');
    const owners = [1, 2, 3, 4].map((n) => `0x${String(n).repeat(64)}`);
    await Promise.all(
      owners.map((owner) =>
        commit(database, 'positions', owner, old, (tx) =>
          writePositions(tx, positionRows([wirePosition('z', { input: 1, current: 2 })], old, owner), {
            owner,
            snapshotAt: old,
            complete: true,
          }),
        ),
      ),
    );
    await expect(database.sql`select count(*)::int as n from position_pnl where snapshot_at = ${old}`).resolves.toEqual(
      [{ n: 4 }],
    );
  });

  it('gives back through the views exactly the rows the normalizer made, for every variant and odd entry', async () => {
    const owner = `0x${'d4'.repeat(32)}`;
    const at = new Date(Date.UTC(2026, 10, 21, 18));
    const odd = {
      ...wirePosition('odd', {}),
      input: [
        { amount: '1.50', value: null, token: { coinType: '0x2::sui::SUI', symbol: 'SUI', logo: 'x' }, note: 'kept' },
        { amount: 2, value: 3 },
        { amount: 4, value: 5, token: '0x2::sui::SUI' },
      ],
      current: { tokens: [], yield: [{ amount: 1, value: 1, token: { address: '0xAB', decimals: 6 } }] },
      farming: [{ base_apr: 1, rewards: 7 }, { total_apy: '0.5', rewards: [[1, 2], { a: null }], boost: 2 }, {}],
    };
    const answer = [...simulatedPositions(owner, at.getTime(), undefined, { positionsPerAddress: 9 }), odd];
    const normalized = normalizePositions(positionsResponse.parse({ data: answer }), {
      owner,
      snapshotAt: at,
      fetchedAt: at,
    });
    await commit(database, 'positions', owner, at, (tx) =>
      writePositions(tx, normalized, { owner, snapshotAt: at, complete: true }),
    );

    // A view's rows with their columns named as the row types name them (position_id: positionId).
    const rowsOf = async <T>(view: string) =>
      (await database.sql`select * from ${database.sql(view)} where owner = ${owner}`).map(
        (row) =>
          Object.fromEntries(
            Object.entries(row).map(([column, value]) => [
              column.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()),
              value,
            ]),
          ) as T & { owner: string; snapshotAt: Date },
      );
    const snapshots = await rowsOf<PositionSnapshotRow>('position_snapshots');
    const amounts = await rowsOf<PositionAmountRow>('position_amounts');
    const farming = await rowsOf<PositionFarmingRow>('position_farming');
    // As JSON (jsonb, like JSON itself, has no negative zero), in one order.
    const sorted = <T extends { positionId: string }>(rows: T[], key: (row: T) => string = () => '') =>
      JSON.parse(
        JSON.stringify(
          [...rows].sort((a, b) => `${a.positionId}|${key(a)}`.localeCompare(`${b.positionId}|${key(b)}`)),
        ),
      ) as unknown;
    const withoutOwnerAndTime = <T extends { owner: string; snapshotAt: Date }>(rows: T[]) =>
      rows.map(({ owner: _, snapshotAt: __, ...row }) => row);
    expect(sorted(snapshots)).toEqual(sorted(normalized.snapshots));
    const amountKey = (row: { kind: string; idx: number }) => `${row.kind}|${row.idx}`;
    expect(sorted(withoutOwnerAndTime(amounts), amountKey)).toEqual(sorted(normalized.amounts, amountKey));
    expect(sorted(withoutOwnerAndTime(farming), (row) => String(row.idx))).toEqual(
      sorted(normalized.farming, (row) => String(row.idx)),
    );
    expect(normalized.amounts.length).toBeGreaterThan(30);
    expect(normalized.amounts.filter((row) => row.tokenInfo !== null).length).toBeGreaterThan(3);
  });

  it('stores a repeated extra and token object once, and each tick reads back as answered when they change', async () => {
    const owner = `0x${'e5'.repeat(32)}`;
    const ticks = [0, 1, 2, 3].map((n) => new Date(Date.UTC(2026, 10, 22, n)));
    // A token no other test names: the first object seen for it is this test's.
    const token = (info: Record<string, unknown>) => [
      { amount: 1, value: 2, token: { coinType: '0x5::fresh::FRESH', symbol: 'FRESH', ...info } },
    ];
    const answers = [
      { ...wirePosition('p', {}), input: token({ decimals: 9 }), healthFactor: 1.5 },
      { ...wirePosition('p', {}), input: token({ decimals: 9 }), healthFactor: 1.5 },
      { ...wirePosition('p', {}), input: token({ decimals: 9, price: 3.1 }), healthFactor: 1.2 },
      { ...wirePosition('p', {}), input: token({ decimals: 9 }) },
    ];
    const expected: unknown[] = [];
    for (const [i, at] of ticks.entries()) {
      const normalized = normalizePositions(positionsResponse.parse({ data: [answers[i]] }), {
        owner,
        snapshotAt: at,
        fetchedAt: at,
      });
      await commit(database, 'positions', owner, at, (tx) =>
        writePositions(tx, normalized, { owner, snapshotAt: at, complete: true }),
      );
      expected.push({ extra: normalized.snapshots[0]!.extra, tokenInfo: normalized.amounts[0]!.tokenInfo });
    }
    const read = await database.sql<{ extra: unknown; token_info: unknown }[]>`
      select s.extra, a.token_info from position_snapshots s
      join position_amounts a using (owner, position_id, snapshot_at)
      where s.owner = ${owner} order by s.snapshot_at`;
    expect(read.map((row) => ({ extra: row.extra, tokenInfo: row.token_info }))).toEqual(expected);
    expect(expected[3]).toEqual({
      extra: null,
      tokenInfo: { coinType: '0x5::fresh::FRESH', symbol: 'FRESH', decimals: 9 },
    });
    // Stored: NULL where the tick repeats the reference, the keys that changed or came, or the whole value when keys
    // went.
    const stored = await database.sql`
      select s.extra, s.amount_token_info from position_snapshot_points s join positions p using (position_key)
      where p.owner = ${owner} order by s.snapshot_at`;
    expect(stored).toEqual([
      { extra: null, amount_token_info: null },
      { extra: null, amount_token_info: null },
      { extra: { healthFactor: 1.2 }, amount_token_info: [{ price: 3.1 }] },
      { extra: [null], amount_token_info: null },
    ]);
  });

  it('forgets a token its transaction inserted and then rolled back: the next job inserts it again', async () => {
    const owner = `0x${'f6'.repeat(32)}`;
    const at = new Date(Date.UTC(2026, 10, 22, 6));
    const answer = [
      {
        ...wirePosition('r', {}),
        input: [{ amount: 1, value: 2, token: { coinType: '0x6::undone::UNDONE', symbol: 'UNDONE' } }],
      },
    ];
    const rows = positionRows(answer, at, owner);
    await expect(
      withTransaction(database, 'positions.write', async (tx) => {
        await writePositions(tx, rows, { owner, snapshotAt: at, complete: true });
        throw new Error('the job failed after writing');
      }),
    ).rejects.toThrow('the job failed after writing');
    await expect(
      database.sql`select count(*)::int as n from position_tokens where token like '%::undone::UNDONE'`,
    ).resolves.toEqual([{ n: 0 }]);

    const result = await commit(database, 'positions', owner, at, (tx) =>
      writePositions(tx, rows, { owner, snapshotAt: at, complete: true }),
    );
    expect(result.byTable.position_tokens).toBe(1);
    const [amount] =
      await database.sql`select token, token_symbol, token_info from position_amounts where owner = ${owner}`;
    expect(amount).toEqual({
      token: `0x${'0'.repeat(63)}6::undone::UNDONE`,
      token_symbol: 'UNDONE',
      token_info: { coinType: '0x6::undone::UNDONE', symbol: 'UNDONE' },
    });
  });

  it('lets concurrent jobs insert the same new tokens named in different orders, each once', async () => {
    const at = new Date(Date.UTC(2026, 10, 22, 7));
    const tokens = Array.from({ length: 30 }, (_, i) => ({ coinType: `0x7::race${i}::RACE${i}`, symbol: `RACE${i}` }));
    const owners = Array.from({ length: 8 }, (_, i) => `0x${(0x70 + i).toString(16).repeat(32)}`);
    await Promise.all(
      owners.map((owner, o) => {
        // Each job names every token twice (as an object and as a string), in an order of its own.
        const rotated = [...tokens.slice(o * 4), ...tokens.slice(0, o * 4)];
        const order = o % 2 === 0 ? rotated : rotated.reverse();
        const input = order.flatMap((token, i) => [
          { amount: i + 1, value: 1, token },
          { amount: i + 1, value: 1, token: token.coinType },
        ]);
        return commit(database, 'positions', owner, at, (tx) =>
          writePositions(tx, positionRows([{ ...wirePosition('race', {}), input }], at, owner), {
            owner,
            snapshotAt: at,
            complete: true,
          }),
        );
      }),
    );
    const stored = await database.sql<{ n: number }[]>`
      select count(*)::int as n from position_tokens where token like '%::race%' group by token, symbol, info is not null`;
    expect(stored).toHaveLength(tokens.length * 2);
    expect(stored.every((row) => row.n === 1)).toBe(true);
    const read = await database.sql<{ n: number; named: number }[]>`
      select count(*)::int as n, count(distinct token)::int as named from position_amounts where owner = any(${owners}) and token like '%::race%'`;
    expect(read).toEqual([{ n: owners.length * tokens.length * 2, named: tokens.length }]);
  });

  it('refuses a snapshot row whose entry names no token, or that names no position', async () => {
    const [{ key }] = await database.sql<{ key: string }[]>`select position_key::text as key from positions limit 1`;
    const at = new Date(Date.UTC(2026, 10, 23));
    await expect(database.sql`
      insert into position_snapshot_points (position_key, snapshot_at, amount_kinds, amount_tokens, amounts)
      values (${key}, ${at}, '{input,input}', ${[1, null]}::int[], '{1,2}')`).rejects.toThrow(
      /position_snapshot_points_amount_tokens_check/,
    );
    await expect(database.sql`
      insert into position_snapshot_points (position_key, snapshot_at) values (null, ${at})`).rejects.toThrow(
      /null value/,
    );
  });

  it('records an empty complete refresh and closes what is open', async () => {
    const result = await write(tick(8), []);
    expect(result.byTable).toEqual({ positions: 1, position_refreshes: 1 });
    expect((await state()).map((row) => row.closed_at)).toEqual([tick(8), tick(6)]);
  });
});

/** A real-shape answer's positions (test/fixtures/real-answers). */
function realAnswer(name: string): Record<string, unknown>[] {
  const url = new URL(`../fixtures/real-answers/${name}.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { data: Record<string, unknown>[] }).data;
}

/** Every `value` of the amount lists of the given positions, nested positions' lists included. */
function amountValues(positions: readonly unknown[]): string[] {
  const values: string[] = [];
  for (const position of positions as Record<string, unknown>[]) {
    const current = (position.current ?? {}) as Record<string, unknown>;
    for (const list of [position.input, position.yieldCollected, current.tokens, current.yield]) {
      for (const entry of (list ?? []) as Record<string, unknown>[]) {
        if ('positionId' in entry) values.push(...amountValues([entry]));
        else values.push(String(entry.value));
      }
    }
  }
  return values;
}

/** The current.tokens and current.yield `value`s of positions. */
function currentValues(positions: readonly Record<string, unknown>[]): string[] {
  return positions.flatMap((position) => {
    const current = (position.current ?? {}) as Record<string, Record<string, unknown>[]>;
    return [...(current.tokens ?? []), ...(current.yield ?? [])].map((entry) => String(entry.value));
  });
}

/**
 * The terms of the answer's net worth, worked out from the answer itself as upstream-reality.md
 * says the service's app counts it: a Borrow's input (its plain entries, and the current values of
 * the positions nested there) less its current values; any other position its current values.
 */
function netWorthTerms(positions: readonly Record<string, unknown>[]): string[] {
  return positions.flatMap((position) => {
    if (position.type !== 'Borrow') return currentValues([position]);
    const input = (position.input ?? []) as Record<string, unknown>[];
    const collateral = input.flatMap((entry) =>
      'positionId' in entry ? currentValues([entry]) : [String(entry.value)],
    );
    return [...collateral, ...currentValues([position]).map((value) => `-${value}`)];
  });
}

describe('writePositions on real-shape answers', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const write = (owner: string, at: Date, positions: unknown[]) =>
    commit(database, 'positions', owner, at, (tx) =>
      writePositions(tx, positionRows(positions, at, owner), { owner, snapshotAt: at, complete: true }),
    );
  const exactSum = async (values: string[]) => {
    const [{ sum }] = await database.sql<
      { sum: string }[]
    >`select sum(v::numeric)::text as sum from unnest(${values}::text[]) v`;
    return sum;
  };

  it('keeps positions sharing a positionId under the same keys whichever order they come in, and closes the one that goes', async () => {
    const owner = `0x${'d4'.repeat(32)}`;
    const lp = (amount: number, tickLower: number) => ({
      ...wirePosition('lp', { input: amount, current: amount }),
      input: [{ amount, value: amount, token: '0x2::sui::SUI' }],
      poolId: '0xpool',
      tickLower,
      tickUpper: tickLower + 60,
    });
    const [a, b, c] = [lp(1, 0), lp(2, 60), lp(3, 120)];
    await write(owner, tick(0), [a, b, c]);
    const keysAt0 = await database.sql<{ position_id: string; upstream_position_id: string }[]>`
      select position_id, upstream_position_id from positions where owner = ${owner} order by position_id`;
    expect(keysAt0).toHaveLength(3);
    expect(new Set(keysAt0.map((row) => row.upstream_position_id))).toEqual(new Set(['lp']));

    await write(owner, tick(1), [c, a, b]);
    await write(owner, tick(2), [c, a]);
    const history = await database.sql`
      select p.position_id, p.first_seen_at, p.last_seen_at, p.closed_at, s.input_value
      from positions p join position_snapshots s on s.owner = p.owner and s.position_id = p.position_id and s.snapshot_at = ${tick(0)}
      where p.owner = ${owner} order by s.input_value`;
    expect(new Set(history.map((row) => row.position_id))).toEqual(new Set(keysAt0.map((row) => row.position_id)));
    expect(history.map(({ position_id: _, ...row }) => row)).toEqual([
      { first_seen_at: tick(0), last_seen_at: tick(2), closed_at: null, input_value: '1' },
      { first_seen_at: tick(0), last_seen_at: tick(1), closed_at: tick(2), input_value: '2' },
      { first_seen_at: tick(0), last_seen_at: tick(2), closed_at: null, input_value: '3' },
    ]);
    const perKey = await database.sql`
      select position_id, count(*)::int as snapshots, min(input_value) = max(input_value) as same_input
      from position_snapshots where owner = ${owner} group by position_id order by position_id`;
    expect(perKey.map((row) => row.same_input)).toEqual([true, true, true]);
    expect(perKey.map((row) => row.snapshots).sort()).toEqual([2, 3, 3]);
  });

  it('stores a nested position as a child of its parent, readable through the views, counted once in latest_portfolio', async () => {
    const owner = `0x${'e5'.repeat(32)}`;
    const answer = realAnswer('positions-nested-borrow');
    await write(owner, tick(0), answer);
    const borrow = String(answer[0]!.positionId);
    const collateral = `${borrow}/input/0`;
    const pnl = await database.sql`
      select position_id, upstream_position_id, parent_position_id, type, input_value, current_value, current_yield_value
      from position_pnl where owner = ${owner} order by position_id`;
    expect(pnl).toEqual([
      {
        position_id: borrow,
        upstream_position_id: borrow,
        parent_position_id: null,
        type: 'Borrow',
        input_value: '0',
        current_value: '35642.0904734',
        current_yield_value: '0.0663508360543',
      },
      {
        position_id: collateral,
        upstream_position_id: '0xb81ac03d4caf61ffce4c76f558e5785ba767e5b8e19d713f7f95579c04eae427',
        parent_position_id: borrow,
        type: 'Lending',
        input_value: '82699.6951256',
        current_value: '82699.7845059',
        current_yield_value: '0.0893803475146',
      },
    ]);
    const amounts = await database.sql`
      select kind, amount, value from position_amounts where owner = ${owner} and position_id = ${collateral} order by kind`;
    expect(amounts).toEqual([
      { kind: 'input', amount: '2992.76053763', value: '82699.6951256' },
      { kind: 'current_token', amount: '2992.76377215', value: '82699.7845059' },
      { kind: 'current_yield', amount: '0.00323452192267', value: '0.0893803475146' },
    ]);
    const [parent] =
      await database.sql`select extra from position_snapshots where owner = ${owner} and position_id = ${borrow}`;
    expect(parent!.extra).not.toHaveProperty('input');
    // Worth the collateral less the debt, the collateral counted once (in the Borrow).
    const [portfolio] =
      await database.sql`select positions_value::text as value from latest_portfolio where owner = ${owner}`;
    expect(portfolio!.value).toBe(await exactSum(netWorthTerms(answer)));
    expect(portfolio!.value).toBe('47057.7170620114603');
  });

  it("gives back the answer's sums of value through the views, for an answer mixing every case", async () => {
    const owner = `0x${'f6'.repeat(32)}`;
    const answer = realAnswer('positions-all-types');
    await write(owner, tick(0), answer);
    const [stored] = await database.sql<{ positions: number; amounts: string; current: string }[]>`
      select (select count(*)::int from positions where owner = ${owner}) as positions,
             (select sum(value)::text from position_amounts where owner = ${owner}) as amounts,
             (select positions_value::text from latest_portfolio where owner = ${owner}) as current`;
    // 12 elements, one of them holding a nested position.
    expect(stored!.positions).toBe(13);
    expect(stored!.amounts).toBe(await exactSum(amountValues(answer)));
    expect(stored!.current).toBe(await exactSum(netWorthTerms(answer)));
  });
});
