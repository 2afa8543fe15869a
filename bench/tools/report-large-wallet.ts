/**
 * Measures the portfolio report of a wallet of 200,000 positions, not a test
 * (test/reports/large-wallet.test.ts asserts what the page lists and that CSV and JSON hold all):
 *   node bench/tools/report-large-wallet.ts [positions] [admin-url]
 * In a throwaway database, writes one positions refresh of that many positions (through the
 * normalizer and the store, as workers write them), then runs `chaintap report portfolio --format
 * html|csv|json --out FILE` as users do (a process of its own), with Node's default heap and with
 * the worker heap of docs/operations.md (the ops server's /report page runs in such a process), and
 * prints each one's wall time, peak RSS and the size of the file.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workerHeapFlags } from '../../src/config/memory-budget.ts';
import { addWatchedAddresses, withTransaction, writePositions } from '../../src/db/index.ts';
import { normalizePositions } from '../../src/normalize/index.ts';
import { runMeasuredNode } from '../support/measured-process.ts';
import { benchServices, createBenchDatabase } from '../support/services.ts';

const ADDRESS = `0x${'f'.repeat(64)}`;
const AT = new Date('2026-11-21T12:00:00Z');
const CLI = fileURLToPath(new URL('../../bin/chaintap.mjs', import.meta.url));
/** Positions written per transaction (one refresh, written in parts). */
const WRITE_BATCH = 20_000;

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 200_000);
  const adminUrl = process.argv[3];
  const services = adminUrl ? { ...benchServices(), adminUrl } : benchServices();
  const database = await createBenchDatabase(services, 'report_large_wallet', 2);
  const folder = mkdtempSync(join(tmpdir(), 'chaintap-report-large-wallet-'));
  try {
    await addWatchedAddresses(database, [ADDRESS], {});
    const seeding = performance.now();
    for (let first = 0; first < count; first += WRITE_BATCH) {
      const data = Array.from({ length: Math.min(WRITE_BATCH, count - first) }, (_, k) => ({
        positionId: `p${first + k}`,
        chain: 'SUI',
        type: 'AMM',
        meta: { protocol: { name: 'Cetus', protocol: 'cetus' } },
        input: [{ amount: '1', value: String((first + k) % 997), token: '0x2::sui::SUI' }],
        current: { tokens: [{ amount: '1', value: String(((first + k) * 7919) % 100_003), token: '0x2::sui::SUI' }] },
      }));
      const rows = normalizePositions({ data }, { owner: ADDRESS, snapshotAt: AT, fetchedAt: AT });
      await withTransaction(database, 'positions.write', (tx) =>
        writePositions(tx, rows, { owner: ADDRESS, snapshotAt: AT, complete: false }),
      );
    }
    await database.sql`analyze`;
    const seconds = ((performance.now() - seeding) / 1000).toFixed(1);
    console.log(`seeded one refresh of ${count.toLocaleString('en-US')} positions in ${seconds} s`);

    const env = { DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
    const heaps = [
      { label: 'default heap', nodeArgs: [] },
      { label: 'worker heap', nodeArgs: workerHeapFlags() },
    ];
    for (const format of ['html', 'csv', 'json']) {
      for (const heap of heaps) {
        const out = join(folder, `portfolio.${format}`);
        const args = ['report', 'portfolio', '--address', ADDRESS, '--from', '2026-11-20', '--to', AT.toISOString()];
        const measured = await runMeasuredNode(
          [CLI, ...args, '--interval', '1d', '--format', format, '--out', out],
          env,
          heap.nodeArgs,
        );
        console.log(
          `${format}, ${heap.label}: ${measured.seconds.toFixed(1)} s, peak RSS ${measured.maxRssMb.toFixed(0)} MB, ` +
            `${(statSync(out).size / 1024 / 1024).toFixed(2)} MB written`,
        );
      }
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await database.drop();
  }
}

await main();
