/**
 * Measures the longest portfolio reports the CLI allows as HTML, not a test (time belongs in
 * benchmarks; test/ops/report-html.test.ts asserts the size bound):
 *   node bench/tools/report-portfolio-html.ts [admin-url]
 * In a throwaway database, writes a year of refreshes of one address (positions and NFTs every 6
 * hours, 1,460 of each, through the simulated upstream's answers, the normalizers and the stores, as
 * workers write them), then runs `chaintap report portfolio --format html --out FILE` as users do (a
 * process of its own) over a year at 10m (52,561 rows) and over 100,000 rows at 5m (the cap), and
 * prints each one's wall time, peak RSS and the size of the file; then, in this process, how long
 * reading the series and rendering the page take apart.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMeasuredNode } from '../support/measured-process.ts';
import { benchServices, createBenchDatabase } from '../support/services.ts';
import { addWatchedAddresses, withTransaction, writeNftHoldings, writePositions } from '../../src/db/index.ts';
import { normalizeNftHoldings, normalizePositions } from '../../src/normalize/index.ts';
import { loadPortfolioReport } from '../../src/ops/report-portfolio.ts';
import { renderPortfolioHtml } from '../../src/ops/report-html.ts';
import { reportRange } from '../../src/ops/report-request.ts';
import { simulatedNftAnswer } from '../../src/simulator/nft-holdings.ts';
import { simulatedPositions } from '../../src/simulator/positions.ts';
import type { NftHoldingsResponse, PositionsResponse } from '../../src/upstream/schemas.ts';

const ADDRESS = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const FROM = '2026-01-01T00:00:00Z';
const TO = '2027-01-01T00:00:00Z';
/** 99,999 steps of 5 minutes after FROM: the 100,000 rows of the cap. */
const CAP_TO = new Date(Date.parse(FROM) + 99_999 * 300_000).toISOString();
const REFRESH_EVERY_MS = 6 * 3_600_000;
const CLI = fileURLToPath(new URL('../../bin/chaintap.mjs', import.meta.url));

async function main(): Promise<void> {
  const adminUrl = process.argv[2];
  const database = await createBenchDatabase(
    adminUrl ? { ...benchServices(), adminUrl } : benchServices(),
    'portfolio_html',
    2,
  );
  const folder = mkdtempSync(join(tmpdir(), 'chaintap-report-portfolio-html-'));
  try {
    await addWatchedAddresses(database, [ADDRESS], { includePnl: true });
    const seeding = performance.now();
    let refreshes = 0;
    for (let time = Date.parse(FROM); time <= Date.parse(TO); time += REFRESH_EVERY_MS) {
      const snapshotAt = new Date(time);
      const positions = normalizePositions({ data: simulatedPositions(ADDRESS, time) } as PositionsResponse, {
        owner: ADDRESS,
        snapshotAt,
        fetchedAt: snapshotAt,
      });
      const nfts = normalizeNftHoldings(
        simulatedNftAnswer(ADDRESS, time, undefined, {}, { includePnl: true }) as NftHoldingsResponse,
        { owner: ADDRESS, snapshotAt, fetchedAt: snapshotAt },
      );
      await withTransaction(database, 'positions.write', async (tx) => {
        await writePositions(tx, positions, { owner: ADDRESS, snapshotAt, complete: true });
        await writeNftHoldings(tx, nfts, { owner: ADDRESS, snapshotAt, scopeChain: 'ALL' });
      });
      refreshes += 1;
    }
    await database.sql`analyze`;
    console.log(
      `seeded ${refreshes} positions and NFT refreshes of one address (every 6 h over a year) in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
    );

    const env = { DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
    const runs = [
      { label: 'a year at 10m', interval: '10m', to: TO },
      { label: '100,000 rows at 5m (the cap)', interval: '5m', to: CAP_TO },
    ];
    for (const run of runs) {
      const out = join(folder, `portfolio-${run.interval}.html`);
      const args = ['report', 'portfolio', '--address', ADDRESS, '--from', FROM, '--to', run.to];
      const measured = await runMeasuredNode(
        [CLI, ...args, '--interval', run.interval, '--format', 'html', '--out', out],
        env,
      );
      const range = reportRange({ from: new Date(FROM), to: new Date(run.to), interval: run.interval }, new Date(TO));
      const reading = performance.now();
      const report = await loadPortfolioReport(database, { address: ADDRESS, range, now: new Date(TO) });
      const read = performance.now() - reading;
      const rendering = performance.now();
      const page = renderPortfolioHtml(report);
      const rendered = performance.now() - rendering;
      console.log(
        `${run.label}: ${report.series.length} rows; CLI ${measured.seconds.toFixed(1)} s, peak RSS ${measured.maxRssMb.toFixed(0)} MB, ` +
          `${(statSync(out).size / 1024).toFixed(0)} KB written; in process: read ${(read / 1000).toFixed(2)} s, ` +
          `render ${(rendered / 1000).toFixed(2)} s (${(Buffer.byteLength(page) / 1024).toFixed(0)} KB)`,
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await database.drop();
  }
}

await main();
