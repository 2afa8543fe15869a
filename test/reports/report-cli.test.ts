import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizedPrices, priceRows, PRICES_START } from '../../bench/support/price-rows.ts';
import { withTransaction, writeTokenPrices } from '../../src/db/index.ts';
import { PORTFOLIO_CSV_HEADER } from '../../src/ops/report-output.ts';
import { formatQuantity, formatUsd, formatUsdPrice } from '../../src/ops/figures.ts';
import { runCli, spawnCli, type CliResult } from '../support/cli.ts';
import type { PipelineHarness } from '../support/pipeline.ts';
import { parseCsv } from './csv.ts';
import { ADDRESS, CETUS, createReportWorld, CYCLE_TICKS, IDLE_ADDRESS, SUI, USDC } from './report-world.ts';

/**
 * `chaintap report` as a user runs it, after a backfill and four cycles against the simulated
 * upstream: every figure of every format is compared with SQL over the documented views, to the
 * last digit (numeric text compared as text).
 */

let harness: PipelineHarness;
const folder = mkdtempSync(join(tmpdir(), 'chaintap-report-cli-'));

beforeAll(async () => {
  harness = await createReportWorld();
}, 300_000);
afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await harness?.close();
});

const report = (...args: string[]) => runCli(['report', ...args], harness.env);
const sql = () => harness.database.sql;
const iso = (time: Date | null) => time?.toISOString() ?? '';
const orEmpty = (value: string | null) => value ?? '';
/** What JSON says of a cell, as the CSV writes it. */
const asCsv = (value: unknown) => (value === null ? '' : String(value));

/**
 * Σ net_value over position_pnl of each of the address's positions refreshes: top-level positions
 * only (a nested one is counted in its parent), as latest_portfolio sums.
 */
async function positionSums(owner: string): Promise<Map<number, string>> {
  const rows = await sql()<{ snapshotAt: Date; value: string }[]>`
    select r.snapshot_at as "snapshotAt", coalesce(sum(p.net_value), 0)::text as value
    from position_refreshes r
    left join position_pnl p on p.owner = r.owner and p.snapshot_at = r.snapshot_at and p.parent_position_id is null
    where r.owner = ${owner}
    group by r.snapshot_at`;
  return new Map(rows.map((row) => [row.snapshotAt.getTime(), row.value]));
}

/** Σ value_usd over nft_pnl of each of the address's NFT refreshes (0 when it held nothing). */
async function nftSums(owner: string): Promise<Map<number, string | null>> {
  const rows = await sql()<{ snapshotAt: Date; value: string | null }[]>`
    select r.snapshot_at as "snapshotAt",
           case when count(n.collection_id) = 0 then 0 else sum(n.value_usd) end::text as value
    from nft_refreshes r
    left join nft_pnl n on n.owner = r.owner and n.snapshot_at = r.snapshot_at
    where r.owner = ${owner}
    group by r.snapshot_at`;
  return new Map(rows.map((row) => [row.snapshotAt.getTime(), row.value]));
}

/** The newest of `times` at or before `at`. */
function latestAtOrBefore(times: number[], at: number): number | undefined {
  return times.filter((time) => time <= at).sort((a, b) => b - a)[0];
}

async function numeric(expression: string, ...values: (string | null)[]): Promise<string | null> {
  const [row] = await sql().unsafe<{ value: string | null }[]>(`select (${expression})::text as value`, values);
  return row!.value;
}

describe('report portfolio', () => {
  const range = ['--from', '2026-11-21T04:00:00Z', '--to', '2026-11-21T13:00:00Z', '--interval', '1h'];
  let csv: ReturnType<typeof parseCsv>;
  let json: {
    report: string;
    address: string;
    series: Record<string, unknown>[];
    positions: Record<string, unknown>[];
    nfts: Record<string, unknown>[];
  };

  beforeAll(async () => {
    const csvRun = await report('portfolio', '--address', ADDRESS, ...range);
    expect(csvRun.stderr).toBe('');
    expect(csvRun.code).toBe(0);
    csv = parseCsv(csvRun.stdout);
    const jsonRun = await report(
      'portfolio',
      '--address',
      ADDRESS.toUpperCase().replace('0X', '0x'),
      ...range,
      '--format',
      'json',
    );
    expect(jsonRun.code).toBe(0);
    json = JSON.parse(jsonRun.stdout);
  });

  it('has a row at --from and every hour up to and including --to, each the latest refreshes at or before it', async () => {
    expect(csv.header).toEqual(PORTFOLIO_CSV_HEADER);
    const series = csv.records.filter((record) => record.section === 'series');
    expect(series.map((record) => record.time)).toEqual(
      Array.from({ length: 10 }, (_, hour) =>
        new Date(Date.parse('2026-11-21T04:00:00Z') + hour * 3_600_000).toISOString(),
      ),
    );
    const positions = await positionSums(ADDRESS);
    const nfts = await nftSums(ADDRESS);
    expect(positions.size).toBe(CYCLE_TICKS.length);
    expect(nfts.size).toBe(CYCLE_TICKS.length);
    const firstTotal = series.find((record) => record.total_value !== '')!.total_value!;
    for (const record of series) {
      const at = Date.parse(record.time!);
      const positionsAt = latestAtOrBefore([...positions.keys()], at);
      const nftsAt = latestAtOrBefore([...nfts.keys()], at);
      expect(record.positions_snapshot_at).toBe(positionsAt === undefined ? '' : new Date(positionsAt).toISOString());
      expect(record.nft_snapshot_at).toBe(nftsAt === undefined ? '' : new Date(nftsAt).toISOString());
      expect(record.positions_value).toBe(positionsAt === undefined ? '' : positions.get(positionsAt));
      expect(record.nft_value_usd).toBe(nftsAt === undefined ? '' : orEmpty(nfts.get(nftsAt)!));
      if (positionsAt === undefined && nftsAt === undefined) {
        // Before the first cycle: a gap, never a zero.
        expect([record.total_value, record.pnl]).toEqual(['', '']);
        continue;
      }
      const total = await numeric(
        'coalesce($1::numeric, 0) + coalesce($2::numeric, 0)',
        record.positions_value || null,
        record.nft_value_usd || null,
      );
      expect(record.total_value).toBe(total);
      expect(record.pnl).toBe(await numeric('$1::numeric - $2::numeric', record.total_value!, firstTotal));
    }
    // The gaps are the two hours before the first cycle (06:00).
    expect(series.filter((record) => record.total_value === '').map((record) => record.time)).toEqual([
      '2026-11-21T04:00:00.000Z',
      '2026-11-21T05:00:00.000Z',
    ]);
    // Values moved from cycle to cycle: PnL is not zero everywhere.
    expect(new Set(series.map((record) => record.total_value)).size).toBe(CYCLE_TICKS.length + 1);
  });

  it('ends on what latest_portfolio says now', async () => {
    const [latest] = await sql()<Record<string, string | Date | null>[]>`
      select positions_value::text, nft_value::text, total_value::text, positions_snapshot_at, nft_snapshot_at
      from latest_portfolio where owner = ${ADDRESS}`;
    const last = csv.records.filter((record) => record.section === 'series').at(-1)!;
    expect(last.positions_value).toBe(latest!.positions_value);
    expect(last.nft_value_usd).toBe(latest!.nft_value);
    expect(last.total_value).toBe(latest!.total_value);
    expect(last.positions_snapshot_at).toBe(iso(latest!.positions_snapshot_at as Date));
    expect(last.nft_snapshot_at).toBe(iso(latest!.nft_snapshot_at as Date));
  });

  it('lists every position and collection of the last refreshes, as position_pnl and nft_pnl hold them', async () => {
    const positions = await sql()<Record<string, string | null>[]>`
      select p.position_id, p.parent_position_id, p.protocol_id, pr.name as protocol_name, p.type, p.chain,
             p.input_value::text, p.current_value::text, p.current_yield_value::text,
             p.yield_collected_value::text, p.pnl::text, p.asset_value::text, p.debt_value::text,
             p.net_value::text, p.health_factor::text
      from position_pnl p left join protocols pr using (protocol_id)
      where p.owner = ${ADDRESS} and p.snapshot_at = ${CYCLE_TICKS.at(-1)!}`;
    const reported = csv.records.filter((record) => record.section === 'position');
    expect(reported.length).toBe(positions.length);
    expect(positions.length).toBeGreaterThan(3);
    for (const expected of positions) {
      const record = reported.find((r) => r.position_id === expected.position_id)!;
      expect(record, expected.position_id!).toBeDefined();
      expect(record.positions_snapshot_at).toBe(CYCLE_TICKS.at(-1)!.toISOString());
      for (const [column, value] of Object.entries(expected)) expect(record[column], column).toBe(orEmpty(value));
    }
    // Nested after their parent, each row once.
    const ids = reported.map((record) => record.position_id);
    for (const child of reported.filter((record) => record.parent_position_id !== ''))
      expect(ids.indexOf(child.parent_position_id!)).toBe(ids.indexOf(child.position_id!) - 1);

    const nfts = await sql()<Record<string, string | number | null>[]>`
      select collection_id, collection_name, chain, token_count, floor_price_native::text, native_token_symbol,
             native_price_usd::text, value_usd::text, realized_pnl::text, unrealized_pnl::text
      from nft_pnl where owner = ${ADDRESS} and snapshot_at = ${CYCLE_TICKS.at(-1)!}`;
    const reportedNfts = csv.records.filter((record) => record.section === 'nft');
    expect(reportedNfts.length).toBe(nfts.length);
    expect(nfts.length).toBeGreaterThan(1);
    for (const expected of nfts) {
      const record = reportedNfts.find((r) => r.collection_id === expected.collection_id)!;
      for (const [column, value] of Object.entries(expected))
        expect(record[column], column).toBe(value === null ? '' : String(value));
    }

    // The sections add up to the last row: top-level positions' net values (assets less debt) to
    // positions_value, and their two sides to its asset and debt columns; collections to nft_value_usd.
    const last = csv.records.filter((record) => record.section === 'series').at(-1)!;
    const topLevel = reported.filter((r) => r.parent_position_id === '' && r.net_value !== '');
    const [sums] = await sql()<{ positions: string; assets: string; debt: string; nfts: string }[]>`
      select (select sum(v::numeric) from unnest(${topLevel.map((r) => r.net_value!)}::text[]) as t(v))::text as positions,
             (select sum(v::numeric) from unnest(${topLevel.map((r) => r.asset_value!)}::text[]) as t(v))::text as assets,
             (select sum(v::numeric) from unnest(${topLevel.map((r) => r.debt_value!)}::text[]) as t(v))::text as debt,
             (select sum(v::numeric) from unnest(${reportedNfts.map((r) => r.value_usd || null)}::text[]) as t(v))::text as nfts`;
    expect(sums!.positions).toBe(last.positions_value);
    expect(sums!.assets).toBe(last.positions_asset_value);
    expect(sums!.debt).toBe(last.positions_debt_value);
    // A Borrow is debt: no PnL, its debt its current value and yield, its collateral nested in it.
    const borrows = reported.filter((r) => r.type === 'Borrow');
    expect(borrows.length).toBeGreaterThan(0);
    for (const borrow of borrows) {
      expect(borrow.pnl).toBe('');
      expect(borrow.debt_value).toBe(
        await numeric('$1::numeric + $2::numeric', borrow.current_value!, borrow.current_yield_value!),
      );
      expect(reported.some((r) => r.parent_position_id === borrow.position_id)).toBe(true);
    }
    expect(Number(sums!.debt)).toBeGreaterThan(0);
    expect(sums!.nfts).toBe(last.nft_value_usd);
  });

  it('gives the positions of the refresh in force at an earlier --to', async () => {
    const run = await report(
      'portfolio',
      '--address',
      ADDRESS,
      '--from',
      '2026-11-21T08:00:00Z',
      '--to',
      '2026-11-21T09:59:59Z',
    );
    expect(run.code).toBe(0);
    const records = parseCsv(run.stdout).records;
    expect(records.filter((r) => r.section === 'series').map((r) => r.time)).toEqual(['2026-11-21T08:00:00.000Z']);
    const snapshots = new Set(
      records
        .filter((r) => r.section === 'position' || r.section === 'nft')
        .map((r) => r.positions_snapshot_at || r.nft_snapshot_at),
    );
    expect([...snapshots]).toEqual([CYCLE_TICKS[1]!.toISOString()]);
  });

  it('names the address with its format, datasets and chains, in CSV and JSON', () => {
    const [address] = csv.records;
    expect(address).toMatchObject({
      section: 'address',
      address: ADDRESS,
      address_format: 'SUI',
      datasets: 'positions,nfts',
      positions_chain: 'ALL',
      nft_chain: 'ALL',
    });
    expect(json).toMatchObject({
      address: ADDRESS,
      address_format: 'SUI',
      datasets: 'positions,nfts',
      positions_chain: 'ALL',
      nft_chain: 'ALL',
    });
  });

  it('writes the same rows in JSON, every number a string', () => {
    expect(json.report).toBe('portfolio');
    expect(json.address).toBe(ADDRESS);
    const sections = { series: json.series, position: json.positions, nft: json.nfts };
    for (const [section, rows] of Object.entries(sections)) {
      const records = csv.records.filter((record) => record.section === section);
      expect(rows.length).toBe(records.length);
      rows.forEach((row, index) => {
        for (const [column, value] of Object.entries(row)) {
          expect(typeof value === 'string' || value === null, `${section}.${column}`).toBe(true);
          expect(asCsv(value), `${section}.${column}`).toBe(records[index]![column]);
        }
      });
    }
  });

  it('writes an HTML file with the charts and the exact figures, nothing to fetch and no script', async () => {
    const out = join(folder, 'portfolio.html');
    const run = await report('portfolio', '--address', ADDRESS, ...range, '--format', 'html', '--out', out);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`report portfolio: ${csv.records.length} row(s) written to ${out}`);
    const page = readFileSync(out, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|url\(/i);
    expect(page).toContain('class="series series-total"');
    expect(page).toContain('class="report-chart bar-chart"');
    // Each figure written for people, the exact one in its title.
    const shown: Record<string, (value: string) => string> = {
      total_value: formatUsd,
      pnl: formatUsd,
      current_value: formatUsd,
      value_usd: formatUsd,
      unrealized_pnl: (value) => formatQuantity(value),
    };
    for (const record of csv.records) {
      for (const [column, format] of Object.entries(shown)) {
        const value = record[column];
        if (value) expect(page).toContain(`title="${value}">${format(value)}<`);
      }
    }
  });

  it('carries a refresh from before --from into the rows until the next one', async () => {
    const run = await report(
      'portfolio',
      '--address',
      ADDRESS,
      ...['--from', '2026-11-21T09:00:00Z', '--to', '2026-11-21T11:00:00Z', '--interval', '30m', '--format', 'json'],
    );
    expect(run.code).toBe(0);
    const { series } = JSON.parse(run.stdout) as { series: Record<string, string | null>[] };
    const [, eight, ten] = CYCLE_TICKS.map((tick) => tick.toISOString());
    expect(series.map((row) => row.positions_snapshot_at)).toEqual([eight, eight, ten, ten, ten]);
    expect(series.map((row) => row.nft_snapshot_at)).toEqual([eight, eight, ten, ten, ten]);
    const positions = await positionSums(ADDRESS);
    expect(series.map((row) => row.positions_value)).toEqual(
      series.map((row) => positions.get(Date.parse(row.positions_snapshot_at!))),
    );
    expect(series[0]!.pnl).toMatch(/^0(\.0+)?$/);
  });

  it('reads relative times against one clock: -2d to now at 1d is three rows', async () => {
    const run = await report(
      'portfolio',
      '--address',
      IDLE_ADDRESS,
      '--from',
      '-2d',
      '--to',
      'now',
      '--format',
      'json',
    );
    expect(run.code).toBe(0);
    const { from, to, series } = JSON.parse(run.stdout) as { from: string; to: string; series: unknown[] };
    expect(Date.parse(to) - Date.parse(from)).toBe(2 * 86_400_000);
    expect(series).toHaveLength(3);
  });

  it('reports a watched address that was never refreshed as gaps', async () => {
    const run = await report(
      'portfolio',
      '--address',
      IDLE_ADDRESS,
      '--from',
      '2026-11-20T00:00:00Z',
      '--to',
      '2026-11-21T00:00:00Z',
    );
    expect(run.code).toBe(0);
    const records = parseCsv(run.stdout).records;
    expect(records.map((r) => [r.section, r.total_value])).toEqual([
      ['address', ''],
      ['series', ''],
      ['series', ''],
    ]);
  });
});

describe('report prices', () => {
  const range = ['--from', '2026-11-19T00:00:00Z', '--to', '2026-11-22T00:00:00Z'];
  let csv: ReturnType<typeof parseCsv>;

  beforeAll(async () => {
    // The short form of SUI's coin type is read in its normal form.
    const run = await report('prices', '--tokens', `0x2::sui::SUI,${USDC}`, ...range, '--interval', '1h');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    csv = parseCsv(run.stdout);
  });

  it('has every hour of [from, to) per token: OHLC and count as SQL over token_prices gives them, gaps marked', async () => {
    expect(csv.header).toEqual([
      'coin_type',
      'symbol',
      'time',
      'open',
      'high',
      'low',
      'close',
      'samples',
      'gap',
      'chain',
    ]);
    expect(csv.records.length).toBe(2 * 72);
    const expected = await sql()<Record<string, string | Date>[]>`
      select distinct coin_type, date_trunc('hour', price_time) as hour,
             first_value(price) over w::text as open, max(price) over w::text as high, min(price) over w::text as low,
             last_value(price) over w::text as close, (count(*) over w)::text as samples
      from token_prices
      where coin_type in (${SUI}, ${USDC}) and price_time >= '2026-11-19T00:00:00Z' and price_time < '2026-11-22T00:00:00Z'
      window w as (partition by coin_type, date_trunc('hour', price_time) order by price_time
                   rows between unbounded preceding and unbounded following)`;
    const byKey = new Map(expected.map((row) => [`${row.coin_type} ${(row.hour as Date).toISOString()}`, row]));
    let gaps = 0;
    for (const record of csv.records) {
      const row = byKey.get(`${record.coin_type} ${record.time}`);
      if (!row) {
        gaps += 1;
        expect(record).toMatchObject({ open: '', high: '', low: '', close: '', samples: '0', gap: 'true' });
        continue;
      }
      expect(record.gap).toBe('false');
      for (const column of ['open', 'high', 'low', 'close', 'samples'])
        expect(record[column], column).toBe(row[column]);
    }
    expect(csv.records.length - gaps).toBe(expected.length);
    expect(gaps).toBeGreaterThan(0);
    // Backfilled hours are there: 2026-11-20 10:00 came from the backfill, one price.
    const backfilled = csv.records.find((r) => r.coin_type === SUI && r.time === '2026-11-20T10:00:00.000Z')!;
    expect(backfilled.samples).toBe('1');
    expect(csv.records.filter((r) => r.coin_type === SUI).map((r) => r.symbol)).toContain('SUI');
  });

  it('agrees with token_prices_daily_ohlc day by day', async () => {
    const run = await report('prices', '--tokens', `${SUI},${USDC},${CETUS}`, ...range, '--format', 'json');
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as { rows: Record<string, string | boolean | null>[]; tokens: unknown[] };
    expect(json.tokens).toHaveLength(3);
    const days = await sql()<Record<string, string>[]>`
      select coin_type, day::text, open::text, high::text, low::text, close::text, samples::text
      from token_prices_daily_ohlc where coin_type in (${SUI}, ${USDC}, ${CETUS}) and day between '2026-11-19' and '2026-11-21'`;
    expect(json.rows.length).toBe(9);
    for (const row of json.rows) {
      const day = days.find((d) => d.coin_type === row.coin_type && `${d.day}T00:00:00.000Z` === row.time);
      if (!day) {
        expect(row).toMatchObject({ gap: true, samples: '0', open: null, close: null });
        continue;
      }
      expect(row).toMatchObject({
        open: day.open,
        high: day.high,
        low: day.low,
        close: day.close,
        samples: day.samples,
        gap: false,
      });
    }
    expect(json.rows.filter((row) => !row.gap).length).toBe(days.length);
  });

  it('writes the same rows in JSON as in CSV, every number a string', async () => {
    const run = await report(
      'prices',
      '--tokens',
      `0x2::sui::SUI,${USDC}`,
      ...range,
      '--interval',
      '1h',
      '--format',
      'json',
    );
    const json = JSON.parse(run.stdout) as {
      report: string;
      from: string;
      to: string;
      interval: string;
      rows: Record<string, unknown>[];
    };
    expect(json).toMatchObject({
      report: 'prices',
      from: '2026-11-19T00:00:00.000Z',
      to: '2026-11-22T00:00:00.000Z',
      interval: '1h',
    });
    expect(json.rows.length).toBe(csv.records.length);
    json.rows.forEach((row, index) => {
      for (const [column, value] of Object.entries(row)) {
        if (column !== 'gap') expect(typeof value === 'string' || value === null, column).toBe(true);
        expect(asCsv(value), column).toBe(csv.records[index]![column]);
      }
    });
  });

  it('writes an HTML file with a chart and an OHLC table per token', async () => {
    const out = join(folder, 'prices.html');
    const run = await report(
      'prices',
      '--tokens',
      `${SUI},${USDC}`,
      ...range,
      '--interval',
      '1h',
      '--format',
      'html',
      '--out',
      out,
    );
    expect(run.code).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(page).not.toMatch(/<script|<link|<img|\ssrc=|url\(/i);
    expect(page.match(/<svg class="report-chart ohlc-chart"/g)).toHaveLength(2);
    expect(page.match(/<table class="ohlc">/g)).toHaveLength(2);
    for (const record of csv.records.filter((r) => r.gap === 'false'))
      expect(page).toContain(`title="${record.close}">${formatUsdPrice(record.close!)}<`);
    expect(page.match(/<tr class="gap">/g)).toHaveLength(csv.records.filter((r) => r.gap === 'true').length);
  });
});

describe('bad input: a clear message, exit 1, nothing written', () => {
  const cases: [string, string[], string][] = [
    [
      'an address neither watched nor stored',
      ['portfolio', '--address', `0x${'9'.repeat(64)}`],
      'is not watched and has no stored positions or NFTs',
    ],
    ['an address that is not one', ['portfolio', '--address', 'wallet-of-bob'], 'invalid address "wallet-of-bob"'],
    [
      'a token without prices',
      ['prices', '--tokens', `${SUI},0x${'f'.repeat(64)}::foo::FOO`],
      `no prices stored for token 0x${'f'.repeat(64)}::foo::FOO`,
    ],
    [
      'a token without prices in the range',
      ['prices', '--tokens', SUI, '--from', '2020-01-01T00:00:00Z', '--to', '2020-02-01T00:00:00Z'],
      'its stored prices span 2026-11-19T12:00:00.000Z to 2026-11-21T12:00:00.000Z',
    ],
    ['a coin type that is not one', ['prices', '--tokens', 'SUI'], 'invalid coin type "SUI"'],
    [
      '--from after --to',
      ['portfolio', '--address', ADDRESS, '--from', '2026-11-21T00:00:00Z', '--to', '2026-11-20T00:00:00Z'],
      '--from 2026-11-21T00:00:00.000Z is after --to 2026-11-20T00:00:00.000Z',
    ],
    [
      '--from after --to (prices)',
      ['prices', '--tokens', SUI, '--from', '2026-11-21T00:00:00Z', '--to', '2026-11-20T00:00:00Z'],
      'is after --to',
    ],
    ['an unknown interval', ['prices', '--tokens', SUI, '--interval', '1w'], 'invalid --interval "1w"'],
    ['an unknown format', ['portfolio', '--address', ADDRESS, '--format', 'xlsx'], 'unknown --format "xlsx"'],
    [
      'an unreadable time',
      ['portfolio', '--address', ADDRESS, '--from', 'last tuesday'],
      'invalid --from "last tuesday"',
    ],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const out = join(folder, `bad-${what.replace(/\W+/g, '-')}.csv`);
      const run = await report(...args, '--out', out);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
      expect(run.stdout).toBe('');
      expect(existsSync(out)).toBe(false);
    });
  }

  it('an --out whose folder is missing', async () => {
    const run = await report('portfolio', '--address', ADDRESS, '--out', join(folder, 'missing', 'x.csv'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not a folder');
    expect(existsSync(join(folder, 'missing'))).toBe(false);
  });

  it('to standard output: nothing on it', async () => {
    const run = await report('prices', '--tokens', SUI, '--interval', 'hourly');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('error: invalid --interval "hourly"');
  });
});

describe('--out replaces the file only once the report is whole', () => {
  const out = join(folder, 'long.csv');
  let tokens: string[];
  const longReport = () => [
    'report',
    'prices',
    '--tokens',
    tokens.join(','),
    '--from',
    '2026-01-01T00:00:00Z',
    '--to',
    '2027-01-01T00:00:00Z',
    '--interval',
    '1h',
    '--out',
    out,
  ];

  beforeAll(async () => {
    // A large report (175,200 rows), so that it is still being written when it is interrupted.
    tokens = await seedLongHistory();
  }, 120_000);

  /** Starts the long report over a previous file and waits until part of it is in the temporary file. */
  async function startLongReport(): Promise<{ child: ChildProcess; done: Promise<CliResult> }> {
    writeFileSync(out, 'the previous report\r\n');
    const child = spawnCli(longReport(), harness.env);
    const done = collect(child);
    await until(() =>
      readdirSync(folder).find((name) => name.startsWith('.long.csv.') && statSize(join(folder, name)) > 100_000),
    );
    return { child, done };
  }

  function expectPreviousFileOnly(): void {
    expect(readFileSync(out, 'utf8')).toBe('the previous report\r\n');
    expect(readdirSync(folder).filter((name) => name.startsWith('.'))).toEqual([]);
  }

  it('keeps the previous file and leaves no temporary file when a signal stops the report', async () => {
    const { child, done } = await startLongReport();
    child.kill('SIGTERM');
    const run = await done;
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: stopped by a signal before the end of the report');
    expectPreviousFileOnly();
  }, 60_000);

  it('keeps the previous file and leaves no temporary file when the database connection is cut', async () => {
    const { child, done } = await startLongReport();
    // Cut the report's connection until it fails: a cut between two tokens' queries is only reconnected.
    const cut = setInterval(() => {
      void sql()`
        select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query like '%date_bin%'`.catch(
        () => undefined,
      );
    }, 25);
    const run = await done.finally(() => clearInterval(cut));
    expect(child.exitCode).toBe(1);
    expect(run.stderr).toMatch(/CONNECTION_CLOSED|ECONNRESET|terminating connection/);
    expectPreviousFileOnly();
  }, 60_000);

  it('replaces the file once the report is whole', async () => {
    writeFileSync(out, 'the previous report\r\n');
    const run = await runCli([...longReport().slice(0, -3), '1d', '--out', out], harness.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`report prices: ${20 * 365} row(s) written to ${out}\n`);
    expect(parseCsv(readFileSync(out, 'utf8')).records.length).toBe(20 * 365);
    expect(readdirSync(folder).filter((name) => name.startsWith('.'))).toEqual([]);
  });
});

describe('a signal stops a report at once', () => {
  /** The report's statements waiting on a lock (pg_stat_activity). */
  const waitingOnLock = () => sql()<{ pid: number }[]>`
    select pid from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock' and backend_type = 'client backend'`;

  it.each([
    ['portfolio', ['--address', ADDRESS]],
    ['prices', ['--tokens', SUI]],
  ])(
    '%s: a statement it waits for is cancelled on the server, and the command exits 1',
    async (kind, args) => {
      // A statement that would not end by itself: the tables it reads are locked meanwhile.
      const lock = await sql().reserve();
      try {
        await lock`begin`;
        await lock`lock table watched_addresses, token_catalog in access exclusive mode`;
        const child = spawnCli(['report', kind, ...args], harness.env);
        const done = collect(child);
        for (let tries = 0; (await waitingOnLock()).length === 0; tries++) {
          if (tries > 600) throw new Error(`the report never reached its statement: ${child.exitCode}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const signalledAt = Date.now();
        child.kill('SIGTERM');
        const run = await done;
        const stoppedInMs = Date.now() - signalledAt;
        expect(run.code).toBe(1);
        expect(run.stderr).toContain('error: stopped by a signal before the end of the report');
        // The lock is still held, and nothing waits on it: the statement was cancelled, not abandoned.
        expect(await waitingOnLock()).toEqual([]);
        // Without the cancel it would wait for the lock for ever; a generous bound for a loaded machine.
        expect(stoppedInMs).toBeLessThan(5_000);
      } finally {
        await lock`rollback`;
        lock.release();
      }
    },
    60_000,
  );
});

function collect(child: ChildProcess): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => (stdout += chunk));
    child.stderr?.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function statSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

async function until<T>(probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** 20 tokens with a price every hour of 2026 (175,200 prices), written through the price store's bulk path. */
async function seedLongHistory(): Promise<string[]> {
  const hours = 365 * 24;
  const firstMinute = (Date.parse('2026-01-01T00:00:00Z') - PRICES_START) / 60_000;
  for (let hour = 0; hour < hours; hour += 500) {
    const rows = Array.from({ length: Math.min(500, hours - hour) }, (_, h) =>
      priceRows(0, 20, firstMinute + (hour + h) * 60, 1),
    ).flat();
    await withTransaction(harness.database, 'prices.write', (tx) => writeTokenPrices(tx, normalizedPrices(rows)));
  }
  return priceRows(0, 20, 0, 1).map((row) => row.coinType);
}
