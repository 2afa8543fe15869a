import { shortCoinType } from '../chain/coin-type.ts';
import type { PortfolioNftRow, PortfolioPositionRow } from '../db/stores/reports.ts';
import { addressFormatLabel, describeAddressWatch } from './address-watch.ts';
import { Html, html } from './html.ts';
import { renderBarChartSvg, renderOhlcChartSvg, renderTimeChartSvg } from './report-charts.ts';
import type { PortfolioReport } from './report-portfolio.ts';
import type { PriceReport, PriceReportRow, PriceReportToken } from './report-prices.ts';
import type { ReportRange } from './report-request.ts';

/**
 * The HTML form of the reports: one self-contained document (inline CSS and SVG, no script, nothing
 * fetched), laid out to print on A4. Tables hold the exact figures as stored; charts are drawn from
 * them. The price report is written token by token, so that it streams like the CSV.
 */

const STYLE = new Html(`
  :root { color-scheme: light; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  body { font: 13px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; background: #f6f8fa; color: #1f2328; }
  header { background: #24292f; color: #fff; padding: 14px 24px; }
  header h1 { font-size: 19px; margin: 0 0 4px; }
  header .meta { color: #c9d1d9; font-size: 12px; }
  header a { color: #9ecbff; }
  main { max-width: 980px; margin: 0 auto; padding: 16px 24px 40px; }
  section { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 12px 16px; margin-bottom: 16px; }
  h2 { font-size: 15px; margin: 0 0 8px; }
  h2 .coin { font-weight: normal; }
  .summary { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 8px 16px; margin: 0; }
  .summary div { border-left: 3px solid #d0d7de; padding-left: 8px; }
  .summary dt { color: #57606a; font-size: 12px; }
  .summary dd { margin: 0; font-size: 15px; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
  .chart svg { display: block; width: 100%; max-width: 940px; height: auto; margin: 4px 0 10px; }
  table { border-collapse: collapse; width: 100%; font-size: 12px; }
  th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid #eaeef2; vertical-align: top; }
  th { color: #57606a; font-weight: 600; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
  td.num { overflow-wrap: anywhere; }
  td.time { white-space: nowrap; }
  td.id { max-width: 200px; }
  .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 11px; overflow-wrap: anywhere; }
  .muted { color: #57606a; }
  tr.gap td { color: #9a6700; background: #fff8c5; }
  tr.nested td:first-child { padding-left: 20px; }
  .negative { color: #cf222e; } .positive { color: #1a7f37; }
  .note { color: #57606a; font-size: 12px; }
  @page { size: A4; margin: 12mm; }
  @media print {
    body { background: #fff; font-size: 10px; }
    header { background: none; color: #000; border-bottom: 2px solid #24292f; padding: 0 0 6px; }
    header .meta, header a { color: #333; }
    main { max-width: none; padding: 8px 0 0; }
    section { border: none; border-radius: 0; padding: 0; margin-bottom: 12px; }
    .chart, .summary, h2 { break-inside: avoid; break-after: avoid-page; }
    thead { display: table-header-group; }
    tr { break-inside: avoid; }
  }
`);

/** "2026-11-21 12:00:00" (UTC, named in the column headers). */
function utc(time: Date | null): string {
  if (!time) return '—';
  const iso = time.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** An exact figure as stored, signed figures coloured; null: an em dash. */
function figure(value: string | null, signed = false): Html {
  if (value === null) return html`<td class="num muted">—</td>`;
  const sign = signed ? (value.startsWith('-') ? ' negative' : /[1-9]/.test(value) ? ' positive' : '') : '';
  return html`<td class="num${sign}">${value}</td>`;
}

function rangeText(range: ReportRange): string {
  return `${utc(range.from)} to ${utc(range.to)} UTC, every ${range.interval}`;
}

/** The document up to and including `body`; PAGE_END closes it. */
function pageStart(title: string, heading: Html, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${STYLE}</style></head>
<body>${heading}<main>
${body}`.text;
}

const PAGE_END = '</main></body></html>\n';

function positionLabel(position: PortfolioPositionRow): string {
  const protocol = position.protocolName ?? position.protocolId ?? 'no protocol';
  const id = position.positionId.length > 14 ? `${position.positionId.slice(0, 12)}…` : position.positionId;
  return `${position.parentPositionId ? '↳ ' : ''}${protocol} · ${position.type} · ${id}`;
}

function positionsSection(report: PortfolioReport): Html {
  const { positions } = report;
  if (positions.length === 0)
    return html`<p class="muted">No positions refresh at or before ${utc(report.range.to)} UTC, or it held none.</p>`;
  const chart = renderBarChartSvg(
    positions.map((position) => ({ label: positionLabel(position), value: position.pnl })),
    { title: `PnL by position at ${utc(positions[0]!.snapshotAt)} UTC` },
  );
  const rows = positions.map(
    (p) =>
      html`<tr class="${p.parentPositionId ? 'nested' : 'top'}" data-position-id="${p.positionId}"><td class="mono id">${p.positionId}</td><td>${p.protocolName ?? p.protocolId ?? '—'}</td><td>${p.type}</td><td>${p.chain}</td>${figure(p.inputValue)}${figure(p.currentValue)}${figure(p.currentYieldValue)}${figure(p.yieldCollectedValue)}${figure(p.debtValue)}${figure(p.netValue, true)}${figure(p.pnl, true)}</tr>`,
  );
  return html`<p class="note">Refresh of ${utc(positions[0]!.snapshotAt)} UTC. A borrow's current value and yield are its debt, its collateral its input or the positions nested in it (↳): net = collateral − debt, counted once with its collateral; its PnL is empty, as the answer holds no basis for one. Every other position is worth its current value and yield.</p>
<div class="chart">${chart}</div>
<table class="positions"><thead><tr><th>position</th><th>protocol</th><th>type</th><th>chain</th><th class="num">input value</th><th class="num">current value</th><th class="num">current yield</th><th class="num">yield collected</th><th class="num">debt</th><th class="num">net value</th><th class="num">PnL</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function nftLabel(nft: PortfolioNftRow): string {
  return `${nft.collectionName ?? nft.collectionId} (${nft.chain ?? '?'})`;
}

function nftSection(report: PortfolioReport): Html {
  const { nfts } = report;
  if (nfts.length === 0)
    return html`<p class="muted">No NFT refresh at or before ${utc(report.range.to)} UTC, or it held none.</p>`;
  const chart = renderBarChartSvg(
    nfts.map((nft) => ({ label: nftLabel(nft), value: nft.valueUsd })),
    { title: `NFT value in USD by collection at ${utc(nfts[0]!.snapshotAt)} UTC` },
  );
  const rows = nfts.map(
    (n) =>
      html`<tr data-collection-id="${n.collectionId}"><td class="id">${n.collectionName ?? '—'}<div class="mono muted">${n.collectionId}</div></td><td>${n.chain ?? '—'}</td><td class="num">${n.tokenCount}</td><td class="num">${n.floorPriceNative ?? '—'} ${n.nativeTokenSymbol ?? ''}</td>${figure(n.nativePriceUsd)}${figure(n.valueUsd)}${figure(n.realizedPnl, true)}${figure(n.unrealizedPnl, true)}</tr>`,
  );
  return html`<p class="note">Refresh of ${utc(nfts[0]!.snapshotAt)} UTC. Value = count × floor × USD price of the chain's native token; unknown (—) when the floor or that price is missing. PnL is empty unless the address is refreshed with --pnl.</p>
<div class="chart">${chart}</div>
<table class="nfts"><thead><tr><th>collection</th><th>chain</th><th class="num">count</th><th class="num">floor</th><th class="num">native price, USD</th><th class="num">value, USD</th><th class="num">realized PnL</th><th class="num">unrealized PnL</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function seriesTable(report: PortfolioReport): Html {
  const rows = report.series.map((p) =>
    p.totalValue === null
      ? html`<tr class="gap"><td class="time">${utc(p.time)}</td><td colspan="6">gap: no refresh at or before this time</td></tr>`
      : html`<tr><td class="time">${utc(p.time)}</td>${figure(p.positionsValue)}${figure(p.nftValueUsd)}${figure(p.totalValue)}${figure(p.pnl, true)}<td class="time">${utc(p.positionsSnapshotAt)}</td><td class="time">${utc(p.nftSnapshotAt)}</td></tr>`,
  );
  return html`<table class="series"><thead><tr><th>time, UTC</th><th class="num">positions value (net)</th><th class="num">NFT value, USD</th><th class="num">total value</th><th class="num">PnL since first</th><th>positions refresh</th><th>NFT refresh</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The whole portfolio report as one HTML document. */
export function renderPortfolioHtml(report: PortfolioReport, links: { back?: string } = {}): string {
  const { series, range } = report;
  const last = [...series].reverse().find((p) => p.totalValue !== null);
  const chart = renderTimeChartSvg(
    [
      {
        name: 'total',
        className: 'series-total',
        color: '#2563eb',
        points: series.map((p) => ({ time: p.time, value: p.totalValue })),
      },
      {
        name: 'positions',
        className: 'series-positions',
        color: '#8250df',
        points: series.map((p) => ({ time: p.time, value: p.positionsValue })),
      },
      {
        name: 'NFTs',
        className: 'series-nfts',
        color: '#bf8700',
        points: series.map((p) => ({ time: p.time, value: p.nftValueUsd })),
      },
    ],
    { from: range.from, to: range.to, title: `Value over time of ${report.address}` },
  );
  const summary = html`<dl class="summary">
<div><dt>total value at the end</dt><dd class="total">${last?.totalValue ?? '—'}</dd></div>
<div><dt>PnL over the range</dt><dd class="pnl">${last?.pnl ?? '—'}</dd></div>
<div><dt>positions value (net of debt)</dt><dd>${last?.positionsValue ?? '—'}</dd></div>
<div><dt>NFT value, USD</dt><dd>${last?.nftValueUsd ?? '—'}</dd></div>
<div><dt>rows (gaps)</dt><dd>${series.length} (${series.filter((p) => p.totalValue === null).length})</dd></div>
</dl>`;
  const heading = html`<header><h1>Portfolio report</h1><div class="meta"><span class="mono">${report.address}</span> · <span class="watch">${addressFormatLabel(report.address)} address: ${report.watch ? describeAddressWatch({ address: report.address, ...report.watch }) : 'not watched'}</span><br>${rangeText(range)} · generated ${utc(report.generatedAt)} UTC${links.back ? html` · <a href="${links.back}">status page</a>` : ''}</div></header>`;
  const body = html`<section id="summary"><h2>Summary</h2>${summary}</section>
<section id="value"><h2>Value over time (USD)</h2><p class="note">At each time, the latest refresh at or before it (no interpolation); PnL is the change of the total since the first row with a value.</p><div class="chart">${chart}</div></section>
<section id="positions"><h2>PnL by position</h2>${positionsSection(report)}</section>
<section id="nfts"><h2>NFT value</h2>${nftSection(report)}</section>
<section id="series"><h2>Portfolio over time</h2>${seriesTable(report)}</section>
`;
  return pageStart(`Portfolio report: ${report.address}`, heading, body) + PAGE_END;
}

function tokenName(token: PriceReportToken): string {
  try {
    return token.symbol ?? shortCoinType(token.coinType);
  } catch {
    return token.coinType;
  }
}

/** The start of the price report document: its header and the list of tokens. */
export function priceHtmlStart(report: PriceReport): string {
  const heading = html`<header><h1>Price report</h1><div class="meta">${report.tokens.length} token(s) · ${rangeText(report.range)} (buckets of [time, time + ${report.range.interval}), the last ending at the range's end) · generated ${utc(report.generatedAt)} UTC</div></header>`;
  const list = html`<section id="tokens"><h2>Tokens</h2><table><thead><tr><th>symbol</th><th>coin type</th></tr></thead><tbody>${report.tokens.map(
    (token) => html`<tr><td>${tokenName(token)}</td><td class="mono">${token.coinType}</td></tr>`,
  )}</tbody></table><p class="note">Open and close are the first and the last price of a bucket by price time; a gap is a bucket without any stored price.</p></section>
`;
  return pageStart('Price report', heading, list);
}

/** One token's section: its OHLC chart and table over every bucket. */
export function priceHtmlToken(report: PriceReport, token: PriceReportToken, rows: PriceReportRow[]): string {
  const name = tokenName(token);
  const gaps = rows.filter((row) => row.gap).length;
  const samples = rows.reduce((sum, row) => sum + row.samples, 0);
  const chart = renderOhlcChartSvg(rows, {
    from: report.range.from,
    to: report.range.to,
    intervalMs: report.range.intervalMs,
    title: `${name} OHLC every ${report.range.interval}`,
  });
  const first = rows.find((row) => !row.gap);
  const last = [...rows].reverse().find((row) => !row.gap);
  const table = rows.map((row) =>
    row.gap
      ? html`<tr class="gap"><td class="time">${utc(row.time)}</td><td colspan="4">gap: no price</td><td class="num">0</td></tr>`
      : html`<tr><td class="time">${utc(row.time)}</td>${figure(row.open)}${figure(row.high)}${figure(row.low)}${figure(row.close)}<td class="num">${row.samples}</td></tr>`,
  );
  return `${
    html`<section class="token" data-coin-type="${token.coinType}"><h2>${name} <span class="coin mono muted">${token.coinType}</span></h2>
<dl class="summary"><div><dt>first open</dt><dd>${first?.open ?? '—'}</dd></div><div><dt>last close</dt><dd>${last?.close ?? '—'}</dd></div><div><dt>buckets (gaps)</dt><dd>${rows.length} (${gaps})</dd></div><div><dt>prices</dt><dd>${samples}</dd></div></dl>
<div class="chart">${chart}</div>
<table class="ohlc"><thead><tr><th>bucket start, UTC</th><th class="num">open</th><th class="num">high</th><th class="num">low</th><th class="num">close</th><th class="num">prices</th></tr></thead><tbody>${table}</tbody></table></section>`
      .text
  }\n`;
}

export function priceHtmlEnd(): string {
  return PAGE_END;
}
