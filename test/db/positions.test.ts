import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePositions } from '../../src/db/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { commit, OWNER, positionRows, snapshotOf, wirePosition } from './job-helpers.js';

const tick = (n: number) => new Date(Date.UTC(2026, 10, 21, 12, 15 * n));

describe('writePositions', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const write = (at: Date, positions: unknown[], complete = true) =>
    commit(database, 'positions', OWNER, at, (tx) => writePositions(tx, positionRows(positions, at), { owner: OWNER, snapshotAt: at, complete }));
  const state = async () => database.sql`
    select position_id, first_seen_at, last_seen_at, closed_at from positions where owner = ${OWNER} order by position_id`;
  const TABLES = ['protocols', 'positions', 'position_snapshots', 'position_amounts', 'position_farming', 'position_refreshes'];
  const everything = async () => (await Promise.all(TABLES.map((table) => snapshotOf(database, table, { versions: true })))).flat();

  it('writes positions, snapshots with exact totals, amounts and farming', async () => {
    const result = await write(tick(0), [
      wirePosition('a', { input: '100.1', current: 95, yieldValue: '0.000000001', collected: 7 }),
      wirePosition('b', { input: 10, current: '123456789012.12346' }),
    ]);
    expect(result.byTable).toEqual({
      protocols: 1, positions: 2, position_snapshots: 2, position_amounts: 6, position_farming: 2, position_refreshes: 1,
    });
    const [snapshot] = await database.sql`
      select input_value, yield_collected_value, current_value, current_yield_value from position_snapshots where position_id = 'a'`;
    expect(snapshot).toEqual({ input_value: '100.1', yield_collected_value: '7', current_value: '95', current_yield_value: '0.000000001' });
    const [farming] = await database.sql`select base_apr, rewards_apr, rewards from position_farming f join position_snapshots s on s.id = f.snapshot_id where s.position_id = 'a'`;
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
    expect((await state())[1]).toEqual({ position_id: 'b', first_seen_at: tick(0), last_seen_at: tick(2), closed_at: null });
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
    await expect(database.sql`select count(*)::int as n from position_snapshots where snapshot_at = ${tick(4)}`).resolves.toEqual([{ n: 1 }]);
  });

  it('replaces a tick rewritten with a different answer: shorter lists, lost positions', async () => {
    await write(tick(6), [wirePosition('a', { input: 1, current: 1, collected: 1 }), wirePosition('b', { input: 1, current: 1 })]);
    await write(tick(6), [wirePosition('a', { input: 2, current: 3 })]);
    const amounts = await database.sql`
      select a.kind::text, a.idx, a.value from position_amounts a join position_snapshots s on s.id = a.snapshot_id and s.snapshot_at = a.snapshot_at
      where s.snapshot_at = ${tick(6)} order by 1, 2`;
    expect(amounts).toEqual([{ kind: 'input', idx: 0, value: '2' }, { kind: 'current_token', idx: 0, value: '3' }].sort((x, y) => x.kind.localeCompare(y.kind)));
    await expect(database.sql`select position_id from position_snapshots where snapshot_at = ${tick(6)}`).resolves.toEqual([{ position_id: 'a' }]);
    expect((await state())[1]!.closed_at).toEqual(tick(6));
  });

  it('keeps unknown fields of a variant in extra', async () => {
    await write(tick(7), [wirePosition('a', { input: 1, current: 1 }, { leverage: 5, meta: { protocol: { protocol: 'cetus' }, tags: ['x'] } })]);
    const [row] = await database.sql`select extra from position_snapshots where position_id = 'a' and snapshot_at = ${tick(7)}`;
    expect(row).toEqual({ extra: { leverage: 5, meta: { tags: ['x'] } } });
  });

  it('lets concurrent jobs of a month without partitions create them', async () => {
    const old = new Date('2015-05-05T00:00:00Z');
    const owners = [1, 2, 3, 4].map((n) => `0x${String(n).repeat(64)}`);
    await Promise.all(owners.map((owner) => commit(database, 'positions', owner, old, (tx) =>
      writePositions(tx, positionRows([wirePosition('z', { input: 1, current: 2 })], old, owner), { owner, snapshotAt: old, complete: true }))));
    await expect(database.sql`select count(*)::int as n from position_pnl where snapshot_at = ${old}`).resolves.toEqual([{ n: 4 }]);
  });

  it('records an empty complete refresh and closes what is open', async () => {
    const result = await write(tick(8), []);
    expect(result.byTable).toEqual({ positions: 1, position_refreshes: 1 });
    expect((await state()).map((row) => row.closed_at)).toEqual([tick(8), tick(6)]);
  });
});
