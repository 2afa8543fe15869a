/**
 * Measures `chaintap report prices` over a year of hourly prices for 100 tokens (876,000 buckets),
 * not a test (time and memory belong in benchmarks):
 *   node bench/tools/report-streaming.ts [admin-url]
 * In a throwaway database, seeds the prices through the price store's bulk write (writeTokenPrices,
 * 10,000 rows a write), then runs the report as users do (`chaintap report prices ... --out FILE`,
 * a process of its own) in each format, and prints its wall time, its peak RSS (the process's own
 * maxRSS, read at exit) and the size of what it wrote; then the CSV once more with V8's old
 * generation capped at 64 MB, in which a report holding its rows could not run. For comparison: the
 * same command for 1 token over 1 day (the process's floor: Node and the modules), and a
 * process that reads the same buckets into one array, as a report that does not stream would.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { runMeasuredNode as runNode } from '../support/measured-process.ts';
import { normalizedPrices, priceRows, PRICES_START } from '../support/price-rows.ts';
import { createDatabase } from '../../src/db/client.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { withTransaction, writeTokenPrices } from '../../src/db/index.ts';

const TOKENS = 100;
const FROM = '2026-01-01T00:00:00Z';
const TO = '2027-01-01T00:00:00Z';
const HOURS = (Date.parse(TO) - Date.parse(FROM)) / 3_600_000;
const CLI = fileURLToPath(new URL('../../bin/chaintap.mjs', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
/** The other mode: every bucket of every token read into one array, as a report that does not stream holds them. */
async function holdEverything(url: string, coinTypes: string[]): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const all: unknown[] = [];
  for (const coinType of coinTypes) {
    const rows = await sql`
      select date_bin('1 hour', p.price_time, ${FROM}::timestamptz) as time,
             ((array_agg(p.price order by p.price_time))[1])::text as open, max(p.price)::text as high,
             min(p.price)::text as low, ((array_agg(p.price order by p.price_time desc))[1])::text as close,
             count(*)::int as samples
      from token_prices p
      where p.coin_type = ${coinType} and p.price_time >= ${FROM} and p.price_time < ${TO}
      group by 1 order by 1`;
    all.push(...rows);
  }
  console.error(`held ${all.length} buckets`);
  await sql.end();
}

async function main(): Promise<void> {
  const adminUrl = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `chaintap_measure_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const folder = mkdtempSync(join(tmpdir(), 'chaintap-report-streaming-'));
  try {
    await runMigrations(databaseUrl);
    const database = createDatabase(databaseUrl, { max: 2 });
    const firstMinute = (Date.parse(FROM) - PRICES_START) / 60_000;
    const seeding = performance.now();
    for (let hour = 0; hour < HOURS; hour += 100) {
      const rows = Array.from({ length: Math.min(100, HOURS - hour) }, (_, h) =>
        priceRows(0, TOKENS, firstMinute + (hour + h) * 60, 1),
      ).flat();
      await withTransaction(database, 'prices.write', (tx) => writeTokenPrices(tx, normalizedPrices(rows)));
    }
    await database.sql`vacuum analyze token_price_points`;
    const [count] = await database.sql<{ n: string }[]>`select count(*) as n from token_price_points`;
    console.log(
      `seeded ${count!.n} prices (${TOKENS} tokens x ${HOURS} hours) in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
    );
    await database.close();

    const coinTypes = priceRows(0, TOKENS, 0, 1).map((row) => row.coinType);
    const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' };
    const report = (tokens: string[], to: string, format: string, out: string) => [
      CLI,
      'report',
      'prices',
      '--tokens',
      tokens.join(','),
      '--from',
      FROM,
      '--to',
      to,
      '--interval',
      '1h',
      '--format',
      format,
      '--out',
      out,
    ];
    const floor = await runNode(
      report(coinTypes.slice(0, 1), '2026-01-02T00:00:00Z', 'csv', join(folder, 'floor.csv')),
      env,
    );
    console.log(`floor  1 token x 24 h, csv: ${floor.seconds.toFixed(1)} s, peak RSS ${floor.maxRssMb.toFixed(0)} MB`);
    // The last run caps V8's old generation: a report that held its rows could not finish in 64 MB.
    const runs = [
      { format: 'csv', nodeArgs: [] },
      { format: 'json', nodeArgs: [] },
      { format: 'html', nodeArgs: [] },
      { format: 'csv', nodeArgs: ['--max-old-space-size=64'] },
    ];
    for (const { format, nodeArgs } of runs) {
      const out = join(folder, `prices.${format}`);
      const run = await runNode(report(coinTypes, TO, format, out), env, nodeArgs);
      const size = statSync(out).size / 1024 / 1024;
      console.log(
        `report ${TOKENS} tokens x ${HOURS} h, ${format}${nodeArgs.length ? ` (${nodeArgs.join(' ')})` : ''}: ${run.seconds.toFixed(1)} s ` +
          `(${Math.round((TOKENS * HOURS) / run.seconds).toLocaleString('en-US')} rows/s), ` +
          `peak RSS ${run.maxRssMb.toFixed(0)} MB, ${size.toFixed(0)} MB written`,
      );
    }
    const held = await runNode([SELF, '--hold', databaseUrl, ...coinTypes], {});
    console.log(
      `held   ${TOKENS} tokens x ${HOURS} h in one array (no streaming): ${held.seconds.toFixed(1)} s, peak RSS ${held.maxRssMb.toFixed(0)} MB`,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await admin.unsafe(`drop database "${name}" with (force)`);
    await admin.end();
  }
}

if (process.argv[2] === '--hold') await holdEverything(process.argv[3]!, process.argv.slice(4));
else await main();
