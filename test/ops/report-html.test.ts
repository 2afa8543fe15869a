import { describe, expect, it } from 'vitest';
import type { PortfolioNftRow, PortfolioPoint, PortfolioPositionRow } from '../../src/db/stores/reports.ts';
import { writePortfolioReport } from '../../src/ops/report-output.ts';
import { MAX_SERIES_TABLE_ROWS, renderPortfolioHtml } from '../../src/ops/report-html.ts';
import type { PortfolioReport, PortfolioRows } from '../../src/ops/report-portfolio.ts';
import { MAX_PORTFOLIO_STEPS, reportRange } from '../../src/ops/report-request.ts';

const ADDRESS = `0x${'ab'.repeat(32)}`;
const FROM = new Date('2026-01-01T00:00:00Z');

/** Rows of a refresh held in memory, as the report reads them from a cursor. */
function rowsOf<Row>(rows: Row[]): PortfolioRows<Row> {
  return {
    count: rows.length,
    shown: rows,
    async *all() {
      if (rows.length > 0) yield rows;
    },
  };
}

/** A portfolio series of `steps` rows at `intervalMs`, gaps before `firstValue`, values with 30 decimals. */
function portfolio(steps: number, intervalMs: number, firstValue = 0): PortfolioReport {
  const to = new Date(FROM.getTime() + (steps - 1) * intervalMs);
  const series: PortfolioPoint[] = Array.from({ length: steps }, (_, i) => {
    const time = new Date(FROM.getTime() + i * intervalMs);
    if (i < firstValue)
      return {
        owner: ADDRESS,
        time,
        positionsValue: null,
        positionsAssetValue: null,
        positionsDebtValue: null,
        nftValueUsd: null,
        totalValue: null,
        pnl: null,
        positionsSnapshotAt: null,
        nftSnapshotAt: null,
      };
    const refresh = new Date(time.getTime() - (i % 3) * intervalMs);
    const positions = `${350_000 + ((i * 7919) % 200_000)}.${'123456789'.repeat(3)}123`;
    return {
      owner: ADDRESS,
      time,
      positionsValue: positions,
      positionsAssetValue: positions,
      positionsDebtValue: '0',
      nftValueUsd: '27636.110000000000000000000000001',
      totalValue: positions,
      pnl: i === firstValue ? '0.000000000000000000000000000000' : `-${i % 1000}.${'9'.repeat(30)}`,
      positionsSnapshotAt: refresh,
      nftSnapshotAt: refresh,
    };
  });
  const range = reportRange({ from: FROM, to, interval: `${intervalMs / 60_000}m` }, to);
  return { address: ADDRESS, watch: null, range, generatedAt: to, series, positions: rowsOf([]), nfts: rowsOf([]) };
}

describe('renderPortfolioHtml', () => {
  it('renders the longest series the CLI allows (100,000 rows) in under 3 MB, its table thinned', () => {
    const report = portfolio(MAX_PORTFOLIO_STEPS, 5 * 60_000);
    const page = renderPortfolioHtml(report);
    expect(page.length).toBeLessThan(3 * 1024 * 1024);
    const every = Math.ceil(MAX_PORTFOLIO_STEPS / MAX_SERIES_TABLE_ROWS);
    expect(page).toContain(`data-every="${every}"`);
    const rows = page.match(/<tr><td class="time">/g)!.length;
    expect(rows).toBeLessThanOrEqual(MAX_SERIES_TABLE_ROWS + 1);
    // The last row is listed whatever the thinning.
    expect(page).toContain(`<td class="time">${report.series.at(-1)!.time.toISOString().slice(0, 10)}`);
    expect(page).toContain('one row every 100 (every 8 h 20 min) and the last');
  });

  it('folds the gaps before the first refresh into one row and starts the chart there', () => {
    const page = renderPortfolioHtml(portfolio(31, 86_400_000, 30));
    expect(page.match(/<tr class="gap" data-rows="30">/g)).toHaveLength(1);
    expect(page).toContain('class="note starts-later" data-gaps="30"');
    // One value: one dot, at the right end of a chart that starts at that value.
    expect(page).toContain('data-points="1"');
    expect(page).toContain(
      'PnL over the range</dt><dd class="pnl"><span title="0.000000000000000000000000000000">$0.00</span>',
    );
  });

  it('says so when the address has no refresh at all', () => {
    const page = renderPortfolioHtml(portfolio(3, 86_400_000, 3));
    expect(page).toContain('class="note no-refresh"');
    expect(page).toContain('no value in this range');
  });
});

describe('long ids in the report', () => {
  const POSITION_ID = `0x5fa1${'c3'.repeat(28)}e2b9`;
  const COLLECTION_ID = `0x${'7e'.repeat(32)}::collection::Punks`;

  function withIds(): PortfolioReport {
    const report = portfolio(2, 86_400_000);
    const snapshotAt = report.range.to;
    const position = {
      snapshotAt,
      positionId: POSITION_ID,
      parentPositionId: null,
      protocolId: 'cetus',
      protocolName: 'Cetus',
      type: 'Liquidity',
      chain: 'SUI',
      inputValue: '100',
      currentValue: '110',
      currentYieldValue: '1',
      yieldCollectedValue: '0',
      pnl: '11',
      assetValue: '111',
      debtValue: '0',
      netValue: '111',
      healthFactor: null,
    } as PortfolioPositionRow;
    const nft = {
      snapshotAt,
      collectionId: COLLECTION_ID,
      collectionName: 'Punks',
      chain: 'SUI',
      tokenCount: 2,
      floorPriceNative: '10',
      nativeTokenSymbol: 'SUI',
      nativePriceUsd: '3',
      valueUsd: '60',
      realizedPnl: null,
      unrealizedPnl: null,
    } as PortfolioNftRow;
    return { ...report, positions: rowsOf([position]), nfts: rowsOf([nft]) };
  }

  it('shows a 66-character position id on one line, shortened, the whole id on hover', () => {
    const page = renderPortfolioHtml(withIds());
    expect(POSITION_ID).toHaveLength(66);
    expect(page).toContain(
      `<tr class="top" data-position-id="${POSITION_ID}"><td class="mono id"><span title="${POSITION_ID}">0x5fa1…e2b9</span></td>`,
    );
    expect(page).toContain(
      `<div class="mono muted"><span title="${COLLECTION_ID}">0x7e7e…7e7e::collection::Punks</span></div>`,
    );
  });

  it('keeps every id whole in CSV and JSON', async () => {
    for (const format of ['csv', 'json'] as const) {
      let text = '';
      await writePortfolioReport(withIds(), format, { write: async (piece) => void (text += piece) });
      expect(text, format).toContain(POSITION_ID);
      expect(text, format).toContain(COLLECTION_ID);
      expect(text, format).not.toContain('…');
    }
  });
});
