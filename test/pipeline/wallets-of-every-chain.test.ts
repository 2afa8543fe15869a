import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPortfolioReport } from '../../src/ops/report-portfolio.ts';
import { writePortfolioReport } from '../../src/ops/report-output.ts';
import type { ReportSink } from '../../src/ops/report-file.ts';
import { reportRange } from '../../src/ops/report-request.ts';
import { observePortfolio } from '../../src/alerts/observations.ts';
import { runCli } from '../support/cli.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { startOpsServer, type RunningOpsServer } from '../ops/ops-test-server.ts';
import { parseCsv } from '../reports/csv.ts';

/**
 * Issue 23 end to end: a SUI, an EVM and a Solana wallet watched with the datasets and chains that
 * make sense for them, refreshed with `chaintap run-once` against the simulated upstream (real
 * shapes), then read by every reader: the portfolio report in CSV, JSON and HTML, the status page
 * and the alert rules. Each says the same net worth (assets less debt), to the last digit.
 */
const SUI = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const EVM = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';
const SOLANA = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const WALLETS = [SUI, EVM, SOLANA];
const TICK = '2026-11-21T12:00:00Z';

let harness: PipelineHarness;
let ops: RunningOpsServer;
const cli = (...args: string[]) => runCli(args, harness.env);

beforeAll(async () => {
  harness = await createPipelineHarness({ options: { LOG_LEVEL: 'warn' } });
  ops = await startOpsServer({
    database: harness.database,
    redis: harness.connection,
    queues: harness.queues,
    now: () => new Date(Date.parse(TICK) + 60_000),
  });
}, 120_000);
afterAll(async () => {
  await ops?.close();
  await harness?.close();
});

/** latest_portfolio's figures of a wallet, as BI reads them. */
async function latest(address: string) {
  const [row] = await harness.database.sql<
    { total: string; positions: string | null; assets: string | null; debt: string | null; nfts: string | null }[]
  >`
    select total_value::text as total, positions_value::text as positions, positions_asset_value::text as assets,
           positions_debt_value::text as debt, nft_value::text as nfts
    from latest_portfolio where owner = ${address}`;
  return row!;
}

/** A portfolio report over the tick, written in memory. */
async function reportText(address: string, format: 'csv' | 'json' | 'html'): Promise<string> {
  const range = reportRange(
    { from: new Date('2026-11-21T11:00:00Z'), to: new Date(TICK), interval: '1h' },
    new Date(TICK),
  );
  const report = await loadPortfolioReport(harness.database, { address, range, now: new Date(TICK) });
  let text = '';
  const sink: ReportSink = {
    write: async (chunk: string) => {
      text += chunk;
    },
  };
  await writePortfolioReport(report, format, sink);
  return text;
}

describe('wallets of every chain, worth what the service says they are worth', () => {
  it('watches each wallet with its datasets and chains, and plans only the requests each needs', async () => {
    expect((await cli('addresses', 'add', SUI, EVM)).stdout).toContain('added 2 address(es)');
    expect((await cli('addresses', 'add', SOLANA, '--datasets', 'nfts', '--nft-chain', 'SOL')).code).toBe(0);
    const plan = await cli('plan', '--json');
    expect(JSON.parse(plan.stdout)).toMatchObject({ addresses: 3, positionAddresses: 2, nftAddresses: 3 });
  }, 120_000);

  it('refreshes them with run-once: positions of two wallets, NFTs of three', async () => {
    const run = await cli('run-once', '--tick', TICK, '--datasets', 'positions,nfts');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/positions\s+2\s+2\s+0\s+0\s+\d+/);
    expect(run.stdout).toMatch(/nfts\s+3\s+3\s+0\s+0\s+\d+/);
    const owners = await harness.database.sql<{ owner: string; chains: string[] }[]>`
      select owner, array_agg(distinct chain order by chain) as chains from positions group by owner order by owner`;
    expect(owners.map((row) => row.owner).sort()).toEqual([SUI, EVM].sort());
    expect(owners.find((row) => row.owner === EVM)!.chains.every((chain) => ['ARB', 'ETH'].includes(chain))).toBe(true);
    const nftChains = await harness.database.sql<{ owner: string; chains: string[]; prices: string[] }[]>`
      select owner, array_agg(distinct chain order by chain) as chains, array_agg(distinct market_price::text) as prices
      from nft_holding_snapshots group by owner`;
    const of = (owner: string) => nftChains.find((row) => row.owner === owner)!;
    expect(of(EVM).chains.every((chain) => ['BASE', 'ETH'].includes(chain))).toBe(true);
    expect(of(SOLANA).chains).toEqual(['SOL']);
    // Every SOL collection of the wallet carries the same marketPrice: SOL's USD price.
    expect(of(SOLANA).prices).toHaveLength(1);
  }, 120_000);

  it('counts a borrow as debt: each wallet with positions is worth its assets less its debt', async () => {
    for (const wallet of [SUI, EVM]) {
      const figures = await latest(wallet);
      const [sum] = await harness.database.sql<{ net: string }[]>`
        select (sum(asset_value) - sum(debt_value))::text as net from position_pnl
        where owner = ${wallet} and snapshot_at = ${TICK} and parent_position_id is null`;
      expect(figures.positions, wallet).toBe(sum!.net);
      expect(Number(figures.debt), wallet).toBeGreaterThan(0);
    }
    expect(await latest(SOLANA)).toMatchObject({ positions: null, debt: null });
  });

  it('says the same net worth in every reader: CSV, JSON and HTML reports, the status page, the alert rules', async () => {
    const page = await (await fetch(`${ops.url}/`)).text();
    for (const wallet of WALLETS) {
      const { total, positions } = await latest(wallet);
      const csv = parseCsv(await reportText(wallet, 'csv')).records;
      const lastSeries = csv.filter((record) => record.section === 'series').at(-1)!;
      expect(lastSeries.total_value, wallet).toBe(total);
      expect(lastSeries.positions_value, wallet).toBe(positions ?? '');
      const json = JSON.parse(await reportText(wallet, 'json')) as { series: { total_value: string }[] };
      expect(json.series.at(-1)!.total_value, wallet).toBe(total);
      expect(await reportText(wallet, 'html'), wallet).toContain(total);
      const observed = await observePortfolio(harness.database.sql, wallet, 3_600_000);
      expect(observed?.value, wallet).toBe(total);
      const row = page.slice(page.indexOf(`<tr data-address="${wallet}">`));
      expect(row.slice(0, row.indexOf('</tr>')), wallet).toContain(`title="${total}"`);
    }
  });

  it('reports each wallet with its format, datasets and chains, from the CLI too', async () => {
    const csv = await cli('report', 'portfolio', '--address', EVM, '--from', '2026-11-21T11:00:00Z', '--to', TICK);
    expect(csv.code).toBe(0);
    expect(parseCsv(csv.stdout).records[0]).toMatchObject({
      section: 'address',
      address: EVM,
      address_format: 'EVM',
      datasets: 'positions,nfts',
      nft_chain: 'ALL',
    });
    const json = JSON.parse(
      (await cli('report', 'portfolio', '--address', SOLANA, '--to', TICK, '--from', TICK, '--format', 'json')).stdout,
    );
    expect(json).toMatchObject({ address_format: 'Solana', datasets: 'nfts', positions_chain: null, nft_chain: 'SOL' });
    const page = await (await fetch(`${ops.url}/`)).text();
    expect(page).toContain('<td class="watch">Solana<div class="muted">NFTs on SOL</div></td>');
    expect(page).toContain('<td class="watch">EVM<div class="muted">positions on every chain; NFTs on ALL</div></td>');
  }, 120_000);
});
