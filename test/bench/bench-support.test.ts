import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { achievedRate } from '../../bench/support/pipeline.ts';
import { normalizedPrices, priceRows, PRICES_START } from '../../bench/support/price-rows.ts';
import { formatTable, meetsTarget } from '../../bench/support/report.ts';
import { growthByRows } from '../../bench/support/soak-growth.ts';
import type { SoakDay } from '../../bench/support/soak-results.ts';
import { bytesGrown, tableBytes, tablesBytes } from '../../bench/support/storage-size.ts';
import { ensurePartitions, withTransaction, writeTokenPrices } from '../../src/db/index.ts';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// A fast check of the benchmark's own code paths (the benchmark itself runs with `npm run bench`).

describe('bytes on disk of a partitioned table', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await ensurePartitions(database, { from: new Date(PRICES_START), to: new Date(PRICES_START) });
  });
  afterAll(() => database.drop());

  it('counts the heap and indexes of every partition, and what a write adds', async () => {
    const empty = await tablesBytes(database.sql, ['token_price_points', 'token_catalog']);
    expect(empty.token_price_points!.heap).toBe(0);
    await withTransaction(database, 'prices.write', (tx) =>
      writeTokenPrices(tx, normalizedPrices(priceRows(0, 50, 0, 20))),
    );
    const [row] = await database.sql<{ n: number }[]>`select count(*)::int as n from token_price_points`;
    expect(row!.n).toBe(1000);
    const written = await tableBytes(database.sql, 'token_price_points');
    // At least the 1,000 rows' data (about 60 bytes each) in the heap, and an index entry each.
    expect(written.heap).toBeGreaterThanOrEqual(1000 * 50);
    expect(written.indexes).toBeGreaterThan(empty.token_price_points!.indexes);
    expect(written.total).toBe(written.heap + written.toast + written.indexes);
    const grown = bytesGrown(empty, {
      token_price_points: written,
      token_catalog: await tableBytes(database.sql, 'token_catalog'),
    });
    expect(grown.token_price_points).toBe(written.total - empty.token_price_points!.total);
    expect(grown.token_catalog).toBeGreaterThan(0);
  });
});

describe("the soak's growth against the rows kept", () => {
  const day = (tables: Record<string, number>, rows: Record<string, number>) => ({ tables, rows }) as SoakDay;

  it("prices each table's added rows at its bytes per row on the first day; uncounted tables explain nothing", () => {
    const first = day({ prices: 1_000, snapshots: 4_000, catalog: 100 }, { prices: 10, snapshots: 20 });
    const last = day({ prices: 1_500, snapshots: 5_000, catalog: 160, queue: 40 }, { prices: 15, snapshots: 24 });
    const growth = growthByRows(first, last);
    // 5 prices at 100 B and 4 snapshots at 200 B: 1,300 B; measured 500 + 1,000 + 60 + 40.
    expect(growth.explained).toBe(1_300);
    expect(growth.measured).toBe(1_600);
    expect(growth.tables).toEqual([
      { table: 'prices', rowsAdded: 5, bytesPerRow: 100, explained: 500, measured: 500 },
      { table: 'snapshots', rowsAdded: 4, bytesPerRow: 200, explained: 800, measured: 1_000 },
    ]);
  });

  it('counts a table empty on the first day as explaining nothing, and rows removed as negative', () => {
    const first = day({ raw: 3_000, runs: 0 }, { raw: 30, runs: 0 });
    const last = day({ raw: 2_900, runs: 800 }, { raw: 28, runs: 8 });
    const growth = growthByRows(first, last);
    expect(growth.explained).toBe(-200);
    expect(growth.measured).toBe(700);
  });
});

describe('the achieved rate at the simulator', () => {
  let simulator: RunningSimulator;
  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: 'bench-test-key', faults: { rateLimit: 2 } });
  });
  afterAll(() => simulator.close());

  it('is requests over the span from the first to the last, with the 429s counted', async () => {
    expect(achievedRate(simulator.stats())).toMatchObject({ requests: 0, perSecond: 0, rateLimited: 0 });
    const call = () =>
      fetch(`${simulator.url}/v2/defi/protocols`, { headers: { 'x-api-key': 'bench-test-key' } }).then((r) => r.text());
    await call();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await call();
    await call();
    const rate = achievedRate(simulator.stats());
    expect(rate).toMatchObject({ requests: 3, rateLimited: 1, maxInTrailingSecond: 3 });
    expect(rate.spanSeconds).toBeGreaterThanOrEqual(0.19);
    expect(rate.perSecond).toBeCloseTo(2 / rate.spanSeconds, 6);
  });
});

describe('the report', () => {
  it('checks targets and prints one line per figure', () => {
    expect(meetsTarget({ name: 'a', value: 0.96, unit: '', target: { op: '>=', value: 0.95 } })).toBe(true);
    expect(meetsTarget({ name: 'b', value: 3, unit: '', target: { op: '<=', value: 0 } })).toBe(false);
    expect(meetsTarget({ name: 'c', value: 100, unit: '', target: { op: '==', value: 100 } })).toBe(true);
    expect(meetsTarget({ name: 'd', value: 1, unit: '' })).toBeNull();
    const table = formatTable([
      {
        scenario: 'x',
        notes: [],
        figures: [
          { name: 'ratio', value: 0.5, unit: '', target: { op: '>=', value: 0.8 } },
          { name: 'rows', value: 123456, unit: 'rows/s' },
        ],
      },
    ]);
    expect(table.split('\n')).toEqual([
      expect.stringMatching(/^scenario\s+figure\s+measured\s+target$/),
      expect.stringMatching(/^-+/),
      expect.stringMatching(/^x\s+ratio\s+0\.500\s+≥ 0\.800\s+MISSED$/),
      expect.stringMatching(/^x\s+rows\s+123,456 rows\/s$/),
    ]);
  });
});
