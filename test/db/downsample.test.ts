import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downsampleSnapshots, downsampleTarget, downsampleWindows } from '../../src/db/downsample.ts';
import { writeNftHoldings, writePositions } from '../../src/db/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commit, nftRows, OWNER, positionRows, wirePosition } from './job-helpers.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (iso: string) => new Date(iso);

describe('downsampleWindows', () => {
  const settings = { fullResolutionDays: 7, hourlyDays: 90 };
  const now = at('2026-11-21T03:30:00Z');

  it('covers everything older than the full-resolution cutoff on a first run', () => {
    expect(downsampleWindows(settings, now, null)).toEqual([{ from: null, to: new Date(now.getTime() - 7 * DAY) }]);
  });

  it('after a run, covers only what aged into a tier since then (and a day of late writes)', () => {
    const since = new Date(now.getTime() - DAY);
    expect(downsampleWindows(settings, now, since)).toEqual([
      { from: new Date(since.getTime() - 91 * DAY), to: new Date(now.getTime() - 90 * DAY) },
      { from: new Date(since.getTime() - 8 * DAY), to: new Date(now.getTime() - 7 * DAY) },
    ]);
  });

  it('merges overlapping windows, keeps hourly forever with hourlyDays 0, and is off with fullResolutionDays 0', () => {
    const since = new Date(now.getTime() - 200 * DAY);
    expect(downsampleWindows(settings, now, since)).toEqual([
      { from: new Date(since.getTime() - 91 * DAY), to: new Date(now.getTime() - 7 * DAY) },
    ]);
    expect(downsampleWindows({ fullResolutionDays: 7, hourlyDays: 0 }, now, null)).toEqual([
      { from: null, to: new Date(now.getTime() - 7 * DAY) },
    ]);
    expect(downsampleWindows({ fullResolutionDays: 0, hourlyDays: 90 }, now, null)).toEqual([]);
  });

  it('treats hourlyDays below fullResolutionDays as the same age', () => {
    const since = new Date(now.getTime() - DAY);
    expect(downsampleWindows({ fullResolutionDays: 7, hourlyDays: 3 }, now, since)).toEqual([
      { from: new Date(since.getTime() - 8 * DAY), to: new Date(now.getTime() - 7 * DAY) },
    ]);
  });
});

describe('downsampleSnapshots', () => {
  let database: TestDatabase;
  // Four days of 15-minute positions ticks and hourly NFT ticks across a month boundary.
  const START = at('2026-10-30T00:00:00Z').getTime();
  const END = at('2026-11-03T00:00:00Z').getTime();
  const OTHER = `0x${'d4'.repeat(32)}`;
  const settings = { fullResolutionDays: 1, hourlyDays: 2 };
  const group = (id: string, count: number) => ({
    owner: OWNER,
    collectionId: id,
    collection: { id, name: id, chain: 'SUI' },
    tokens: Array.from({ length: count }, (_, i) => ({ tokenId: `${id}-${i}`, name: `${id} #${i}` })),
    floorPrice: 1.5,
  });

  const writeTick = async (time: number, owner = OWNER) => {
    const tick = new Date(time);
    const n = (time - START) / (15 * 60_000);
    // Position c closes at noon of the first day; a and b stay open.
    const wire = [
      wirePosition('a', { input: 100, current: 100 + n, yieldValue: 1, collected: 2 }),
      wirePosition('b', { input: 5, current: n }),
    ];
    if (time < START + 12 * HOUR) wire.push(wirePosition('c', { input: 1, current: 1 }));
    await commit(database, 'positions', owner, tick, (tx) =>
      writePositions(tx, positionRows(wire, tick, owner), { owner, snapshotAt: tick, complete: true }),
    );
    if (time % HOUR === 0) {
      await commit(database, 'nfts', owner, tick, (tx) =>
        writeNftHoldings(tx, nftRows([group('apes', 2), group('cats', 1 + (n % 3))], tick, owner), {
          owner,
          snapshotAt: tick,
          scopeChain: 'ALL',
        }),
      );
    }
  };

  /** Times (ISO) of an owner's series in a table, per UTC day: how many, and the last one. */
  const perDay = async (table: string, where: string) =>
    database.sql.unsafe(`
    select (snapshot_at at time zone 'UTC')::date::text as day, count(*)::int as n, to_char(max(snapshot_at) at time zone 'UTC', 'HH24:MI') as last
    from ${table} where ${where} group by 1 order by 1`);

  beforeAll(async () => {
    database = await createTestDatabase();
    for (let time = START; time < END; time += 15 * 60_000) await writeTick(time);
    // A second owner with two ticks in one hour of the hourly tier.
    await writeTick(at('2026-11-01T05:00:00Z').getTime(), OTHER);
    await writeTick(at('2026-11-01T05:15:00Z').getTime(), OTHER);
  }, 120_000);
  afterAll(() => database.drop());

  it('keeps every tick of the newest days, the last of each hour after them and the last of each day after that', async () => {
    const portfolioBefore = await database.sql`select * from latest_portfolio order by owner`;
    const outcome = await downsampleSnapshots(database, { ...settings, now: at('2026-11-03T00:00:00Z') });

    expect(outcome.since).toBeNull();
    // One pass per UTC day of each partition the first run covers (from the October partition's
    // first day to the cutoff, 2026-11-02), for positions and for NFTs: not one pass per partition.
    const octoberThroughNovemberFirst = 31 + 1;
    expect(outcome.days).toBe(2 * octoberThroughNovemberFirst);
    const expected = [
      { day: '2026-10-30', n: 1, last: '23:45' },
      { day: '2026-10-31', n: 1, last: '23:45' },
      { day: '2026-11-01', n: 24, last: '23:45' },
      { day: '2026-11-02', n: 96, last: '23:45' },
    ];
    for (const position of ['a', 'b']) {
      await expect(perDay('position_snapshots', `owner = '${OWNER}' and position_id = '${position}'`)).resolves.toEqual(
        expected,
      );
    }
    // A series that ended keeps its last snapshot of the day.
    await expect(perDay('position_snapshots', `owner = '${OWNER}' and position_id = 'c'`)).resolves.toEqual([
      { day: '2026-10-30', n: 1, last: '11:45' },
    ]);
    await expect(perDay('position_refreshes', `owner = '${OWNER}'`)).resolves.toEqual(expected);
    const hourly = [
      { day: '2026-10-30', n: 1, last: '23:00' },
      { day: '2026-10-31', n: 1, last: '23:00' },
      { day: '2026-11-01', n: 24, last: '23:00' },
      { day: '2026-11-02', n: 24, last: '23:00' },
    ];
    await expect(perDay('nft_holding_snapshots', `owner = '${OWNER}' and collection_id = 'apes'`)).resolves.toEqual(
      hourly,
    );
    await expect(perDay('nft_refreshes', `owner = '${OWNER}'`)).resolves.toEqual(hourly);
    await expect(perDay('position_snapshots', `owner = '${OTHER}' and position_id = 'a'`)).resolves.toEqual([
      { day: '2026-11-01', n: 1, last: '05:15' },
    ]);

    // In the hourly tier each kept snapshot is the last tick of its hour.
    const [minutes] = await database.sql`
      select array_agg(distinct extract(minute from snapshot_at)::int) as minutes
      from position_snapshots where owner = ${OWNER} and snapshot_at >= '2026-11-01' and snapshot_at < '2026-11-02'`;
    expect(minutes).toEqual({ minutes: [45] });

    // Amounts and farming entries are kept with their snapshots (they are part of its row).
    const [children] = await database.sql`
      select (select count(*) from position_amounts where position_id = 'a')::int as amounts_of_a,
             (select count(*) from position_farming where position_id = 'a')::int as farming_of_a,
             (select count(*) from position_snapshots where position_id = 'a')::int as snapshots_of_a`;
    expect(children).toEqual({ amounts_of_a: 4 * (122 + 1), farming_of_a: 122 + 1, snapshots_of_a: 122 + 1 });
    expect(outcome.deleted).toEqual({
      // a and b: 384 - 122 each, c: 48 - 1; the other owner: one of its two ticks for a and b.
      position_snapshot_points: 2 * (384 - 122) + 47 + 2,
      position_refreshes: 384 - 122 + 1,
      nft_holding_snapshots: 2 * (96 - 50),
      nft_refreshes: 96 - 50,
    });

    // The views answer over the whole history at the resolution kept, and the latest state is untouched.
    await expect(database.sql`select * from latest_portfolio order by owner`).resolves.toEqual(portfolioBefore);
    const pnl = await database.sql`
      select (snapshot_at at time zone 'UTC')::date::text as day, count(*)::int as n, min(pnl)::text as pnl
      from position_pnl where owner = ${OWNER} and position_id = 'a' group by 1 order by 1`;
    expect(pnl.map((row) => row.n)).toEqual([1, 1, 24, 96]);
    // The kept snapshot of Oct 30 is 23:45, tick 95: pnl = (100 + 95) + 1 + 2 - 100.
    expect(pnl[0]!.pnl).toBe('98');
    await expect(
      database.sql`select count(distinct snapshot_at)::int as n from nft_pnl where owner = ${OWNER}`,
    ).resolves.toEqual([{ n: 50 }]);
  });

  it('records its run, so that the next one looks only at what aged since, and deletes nothing twice', async () => {
    const [watermark] =
      await database.sql`select target, last_success_tick from dataset_freshness where dataset = 'downsample'`;
    expect(watermark).toEqual({ target: downsampleTarget(settings), last_success_tick: at('2026-11-03T00:00:00Z') });

    const again = await downsampleSnapshots(database, { ...settings, now: at('2026-11-03T00:00:00Z') });
    expect(again).toMatchObject({ deleted: {}, since: at('2026-11-03T00:00:00Z') });

    const nextDay = await downsampleSnapshots(database, { ...settings, now: at('2026-11-04T00:00:00Z') });
    expect(nextDay.since).toEqual(at('2026-11-03T00:00:00Z'));
    await expect(perDay('position_snapshots', `owner = '${OWNER}' and position_id = 'a'`)).resolves.toEqual([
      { day: '2026-10-30', n: 1, last: '23:45' },
      { day: '2026-10-31', n: 1, last: '23:45' },
      { day: '2026-11-01', n: 1, last: '23:45' },
      { day: '2026-11-02', n: 24, last: '23:45' },
    ]);
    expect(nextDay.deleted).toEqual({
      position_snapshot_points: 2 * (23 + 72),
      position_refreshes: 23 + 72,
      nft_holding_snapshots: 2 * 23,
      nft_refreshes: 23,
    });
  });

  it('thins a tick written late into a tier that was already thinned', async () => {
    await writeTick(at('2026-11-02T10:20:00Z').getTime());
    const late = await downsampleSnapshots(database, { ...settings, now: at('2026-11-04T00:00:00Z') });
    expect(late.deleted).toEqual({ position_snapshot_points: 2, position_refreshes: 1 });
    await expect(
      database.sql`select count(*)::int as n from position_snapshots where snapshot_at = '2026-11-02T10:20:00Z'`,
    ).resolves.toEqual([{ n: 0 }]);
  });

  it('starts from the beginning with other settings, and does nothing when turned off', async () => {
    const off = await downsampleSnapshots(database, {
      fullResolutionDays: 0,
      hourlyDays: 90,
      now: at('2026-11-04T00:00:00Z'),
    });
    expect(off).toEqual({ deleted: {}, days: 0, since: null });
    const other = { fullResolutionDays: 1, hourlyDays: 0 };
    const outcome = await downsampleSnapshots(database, { ...other, now: at('2026-11-04T00:00:00Z') });
    expect(outcome).toMatchObject({ since: null, deleted: {} });
    await expect(database.sql`select target from dataset_watermarks where dataset = 'downsample'`).resolves.toEqual([
      { target: downsampleTarget(other) },
    ]);
  });
});
