import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactThinnedPartitions, thinnedTier } from '../../src/db/compact-partitions.ts';
import { downsampleSnapshots } from '../../src/db/downsample.ts';
import { writePositions } from '../../src/db/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commit, positionRows, wirePosition } from './job-helpers.ts';

const at = (iso: string) => new Date(iso);
const settings = { fullResolutionDays: 7, hourlyDays: 90 };
const PARTITION = 'position_snapshot_points_p2026_09';

describe('thinnedTier', () => {
  it('says which tier a month ending at a time is wholly thinned to', () => {
    const end = at('2026-10-01T00:00:00Z');
    const tier = (thinnedAt: string, s = settings) => thinnedTier(end, { ...s, thinnedAt: at(thinnedAt) });
    expect(tier('2026-10-07T23:59:59Z')).toBeNull();
    expect(tier('2026-10-08T00:00:00Z')).toBe('hourly');
    expect(tier('2026-12-29T23:59:59Z')).toBe('hourly');
    expect(tier('2026-12-30T00:00:00Z')).toBe('daily');
    expect(tier('2030-01-01T00:00:00Z', { fullResolutionDays: 7, hourlyDays: 0 })).toBe('hourly');
    expect(tier('2030-01-01T00:00:00Z', { fullResolutionDays: 0, hourlyDays: 90 })).toBeNull();
  });
});

describe('compactThinnedPartitions', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    // Three days of 15-minute ticks of two owners with four positions each, in September 2026.
    for (
      let time = at('2026-09-10T00:00:00Z').getTime();
      time < at('2026-09-13T00:00:00Z').getTime();
      time += 15 * 60_000
    ) {
      const tick = new Date(time);
      for (const owner of [`0x${'a1'.repeat(32)}`, `0x${'b2'.repeat(32)}`]) {
        const positions = ['p', 'q', 'r', 's'].map((id, i) =>
          wirePosition(id, { input: 100 + i, current: (time % 1000) + i }),
        );
        await commit(database, 'positions', owner, tick, (tx) =>
          writePositions(tx, positionRows(positions, tick, owner), { owner, snapshotAt: tick, complete: true }),
        );
      }
    }
  });
  afterAll(() => database.drop());

  const size = async () =>
    (await database.sql`select pg_relation_size(${PARTITION}::regclass)::int as n`)[0]!.n as number;
  const rows = async () => (await database.sql`select count(*)::int as n from position_snapshots`)[0]!.n as number;
  const compact = (thinnedAt: string, waits: { lockTimeoutMs?: number; horizonTimeoutMs?: number } = {}) =>
    compactThinnedPartitions(database, {
      ...settings,
      thinnedAt: at(thinnedAt),
      lockTimeoutMs: 5_000,
      horizonTimeoutMs: 60_000,
      ...waits,
    });

  it('rewrites a past month once it is thinned to hourly, so that its file shrinks to the rows kept, and only once', async () => {
    expect(await rows()).toBe(2 * 4 * 288);
    await downsampleSnapshots(database, { ...settings, now: at('2026-10-20T00:00:00Z') });
    expect(await rows()).toBe(2 * 4 * 72);
    const before = await size();
    const first = await compact('2026-10-20T00:00:00Z');
    // (No NFT holdings were written: September has no nft_holding_snapshots partition.)
    expect(first).toEqual({ compacted: [`${PARTITION} hourly`], busy: [] });
    expect(await size()).toBeLessThan(before / 3);
    expect(await rows()).toBe(2 * 4 * 72);
    await expect(compact('2026-10-21T00:00:00Z')).resolves.toEqual({ compacted: [], busy: [] });
  });

  it('leaves a partition that queries are reading for the next run, then rewrites it for the daily tier', async () => {
    await downsampleSnapshots(database, { ...settings, now: at('2027-01-05T00:00:00Z') });
    expect(await rows()).toBe(2 * 4 * 3);
    const reader = await database.sql.reserve();
    try {
      // A query reading the partition, in a transaction still open: holds its lock, and a snapshot older than the
      // compaction.
      await reader`begin isolation level repeatable read`;
      await reader`select count(*) from ${reader(PARTITION)}`;
      await expect(compact('2027-01-05T00:00:00Z', { horizonTimeoutMs: 300 })).resolves.toEqual({
        compacted: [],
        busy: [`${PARTITION} daily`],
      });
      await reader`commit`;
      await reader`begin`;
      await reader`lock table ${reader(PARTITION)} in access share mode`;
      await expect(compact('2027-01-05T00:00:00Z', { lockTimeoutMs: 200 })).resolves.toEqual({
        compacted: [],
        busy: [`${PARTITION} daily`],
      });
    } finally {
      await reader`rollback`;
      reader.release();
    }
    await expect(compact('2027-01-06T00:00:00Z')).resolves.toEqual({ compacted: [`${PARTITION} daily`], busy: [] });
    await expect(
      database.sql`select target from dataset_freshness where dataset = 'compact' order by target`,
    ).resolves.toEqual([{ target: `${PARTITION} daily` }, { target: `${PARTITION} hourly` }]);
  });
});
