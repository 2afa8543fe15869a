import { afterAll, beforeAll, expect, it } from 'vitest';
import { addWatchedAddresses, withTransaction, writePositions } from '../../src/db/index.ts';
import { streamPortfolioPositions } from '../../src/db/stores/reports.ts';
import { normalizePositions } from '../../src/normalize/index.ts';
import { writePortfolioReport } from '../../src/ops/report-output.ts';
import { loadPortfolioReport, MAX_HTML_ROWS } from '../../src/ops/report-portfolio.ts';
import { reportRange } from '../../src/ops/report-request.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { parseCsv } from './csv.ts';

// A wallet of more positions than the HTML lists: the page shows the largest and says how many more
// there are and where they all are; CSV and JSON hold every one, read through a cursor a batch at a
// time. What 200,000 positions cost: bench/tools/report-large-wallet.ts.
const OWNER = `0x${'e'.repeat(64)}`;
const POSITIONS = MAX_HTML_ROWS + 50;
const AT = new Date('2026-11-21T12:00:00Z');
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await addWatchedAddresses(database, [OWNER], {});
  // Position i is worth i dollars, so the largest are those of the highest numbers.
  const data = Array.from({ length: POSITIONS }, (_, i) => ({
    positionId: `p${String(i).padStart(4, '0')}`,
    chain: 'SUI',
    type: 'AMM',
    current: { tokens: [{ amount: '1', value: String(i), token: '0x2::sui::SUI' }] },
  }));
  const rows = normalizePositions({ data }, { owner: OWNER, snapshotAt: AT, fetchedAt: AT });
  await withTransaction(database, 'positions.write', (tx) =>
    writePositions(tx, rows, { owner: OWNER, snapshotAt: AT, complete: true }),
  );
});
afterAll(() => database?.close());

async function report() {
  const range = reportRange({ from: new Date(AT.getTime() - 86_400_000), to: AT, interval: '1d' }, AT);
  return loadPortfolioReport(database, { address: OWNER, range, now: AT });
}

async function written(format: 'csv' | 'json' | 'html'): Promise<{ text: string; rows: number }> {
  let text = '';
  const rows = await writePortfolioReport(await report(), format, { write: async (piece) => void (text += piece) });
  return { text, rows };
}

it('lists the largest positions in the HTML, saying how many more there are and that CSV and JSON hold all', async () => {
  const { text } = await written('html');
  const listed = [...text.matchAll(/data-position-id="(p\d+)"/g)].map((match) => match[1]);
  const largest = Array.from({ length: MAX_HTML_ROWS }, (_, i) => `p${String(POSITIONS - 1 - i).padStart(4, '0')}`);
  expect(listed).toEqual(largest);
  expect(text).toContain(
    `class="note more-rows" data-shown="${MAX_HTML_ROWS}" data-rows="${POSITIONS}">The ${MAX_HTML_ROWS} positions largest by net value (either sign), largest first, of ${POSITIONS}; 50 more are left out of this page. Every one is in the CSV and JSON forms`,
  );
});

it('writes every position in CSV and JSON', async () => {
  const csv = await written('csv');
  const { records } = parseCsv(csv.text);
  expect(records.filter((record) => record.section === 'position')).toHaveLength(POSITIONS);
  expect(csv.rows).toBe(1 + 2 + POSITIONS);
  const json = await written('json');
  const document = JSON.parse(json.text) as { positions: { position_id: string }[]; nfts: unknown[] };
  expect(document.positions.map((position) => position.position_id)).toEqual(
    Array.from({ length: POSITIONS }, (_, i) => `p${String(i).padStart(4, '0')}`),
  );
  expect(document.nfts).toEqual([]);
  expect(json.rows).toBe(csv.rows);
});

it('reads the positions through a cursor, a batch at a time', async () => {
  const sizes: number[] = [];
  for await (const rows of streamPortfolioPositions(database, { owner: OWNER, at: AT, batchRows: 100 }))
    sizes.push(rows.length);
  expect(sizes).toEqual([100, 100, 50]);
});
