import { formatSpan } from '../runtime/time-span.ts';
import type { PortfolioPoint, PortfolioPositionRow } from '../db/stores/reports.ts';
import { addressFormatLabel, describeAddressWatch } from './address-watch.ts';
import { renderBarChartSvg, renderOhlcChartSvg, renderTimeChartSvg } from './charts.ts';
import { figureCell, figureText, formatQuantity, idText, shortCoin } from './figures.ts';
import { Html, html } from './html.ts';
import type { PortfolioReport } from './report-portfolio.ts';
import type { PriceReport, PriceReportRow, PriceReportToken } from './report-prices.ts';
import type { ReportRange } from './report-request.ts';

/**
 * The reports as one self-contained HTML document (inline CSS and SVG) that prints on A4, exact
 * figures in the titles; the price report is written token by token, so that it streams like the CSV.
 */

/**
 * The portfolio's series table lists at most this many rows, past it every k-th (never averaged), so
 * that the longest report (100,000 rows) stays a page of a few hundred kilobytes; CSV and JSON list all.
 */
export const MAX_SERIES_TABLE_ROWS = 1_000;

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
  td.num { white-space: nowrap; }
  td.time { white-space: nowrap; }
  td.id { max-width: 200px; }
  td.mono.id { white-space: nowrap; }
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
  return time ? time.toISOString().slice(0, 19).replace('T', ' ') : '—';
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

export const PAGE_END = '</main></body></html>\n';

function positionLabel(position: PortfolioPositionRow): string {
  const protocol = position.protocolName ?? position.protocolId ?? 'no protocol';
  const id = position.positionId.length > 14 ? `${position.positionId.slice(0, 12)}…` : position.positionId;
  return `${position.parentPositionId ? '↳ ' : ''}${protocol} · ${position.type} · ${id}`;
}

/** Says, when a section lists only the largest rows, how many there are and where all of them are. */
function shownNote(what: string, order: string, shown: number, count: number): Html | '' {
  if (shown >= count) return '';
  return html`<p class="note more-rows" data-shown="${shown}" data-rows="${count}">The ${shown.toLocaleString('en-US')} ${what} ${order} of ${count.toLocaleString('en-US')}; ${(count - shown).toLocaleString('en-US')} more are left out of this page. Every one is in the CSV and JSON forms (chaintap report portfolio --format csv or --format json).</p>`;
}

function positionsSection(report: PortfolioReport): Html {
  const { shown: positions, count } = report.positions;
  if (positions.length === 0)
    return html`<p class="muted">No positions refresh at or before ${utc(report.range.to)} UTC, or it held none.</p>`;
  const chart = renderBarChartSvg(
    positions.map((position) => ({ label: positionLabel(position), value: position.pnl })),
    { title: `PnL by position at ${utc(positions[0]!.snapshotAt)} UTC` },
  );
  const rows = positions.map(
    (p) =>
      html`<tr class="${p.parentPositionId ? 'nested' : 'top'}" data-position-id="${p.positionId}"><td class="mono id">${idText(p.positionId)}</td><td>${p.protocolName ?? p.protocolId ?? '—'}</td><td>${p.type}</td><td>${p.chain}</td>${figureCell(p.inputValue, 'usd')}${figureCell(p.currentValue, 'usd')}${figureCell(p.currentYieldValue, 'usd')}${figureCell(p.yieldCollectedValue, 'usd')}${figureCell(p.debtValue, 'usd')}${figureCell(p.netValue, 'usd', { signed: true })}${figureCell(p.pnl, 'usd', { signed: true })}</tr>`,
  );
  const more = shownNote('positions', 'largest by net value (either sign), largest first,', positions.length, count);
  return html`${more}<p class="note">Refresh of ${utc(positions[0]!.snapshotAt)} UTC. A borrow's current value and yield are its debt, its collateral its input or the positions nested in it (↳): net = collateral − debt, counted once with its collateral; its PnL is empty, as the answer holds no basis for one. Every other position is worth its current value and yield.</p>
<div class="chart">${chart}</div>
<table class="positions"><thead><tr><th>position</th><th>protocol</th><th>type</th><th>chain</th><th class="num">input value</th><th class="num">current value</th><th class="num">current yield</th><th class="num">yield collected</th><th class="num">debt</th><th class="num">net value</th><th class="num">PnL</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function nftSection(report: PortfolioReport): Html {
  const { shown: nfts, count } = report.nfts;
  if (nfts.length === 0)
    return html`<p class="muted">No NFT refresh at or before ${utc(report.range.to)} UTC, or it held none.</p>`;
  const chart = renderBarChartSvg(
    nfts.map((nft) => ({
      label: `${nft.collectionName ?? nft.collectionId} (${nft.chain ?? '?'})`,
      value: nft.valueUsd,
    })),
    { title: `NFT value in USD by collection at ${utc(nfts[0]!.snapshotAt)} UTC` },
  );
  const rows = nfts.map(
    (n) =>
      html`<tr data-collection-id="${n.collectionId}"><td class="id">${n.collectionName ?? '—'}<div class="mono muted">${idText(n.collectionId)}</div></td><td>${n.chain ?? '—'}</td><td class="num">${formatQuantity(String(n.tokenCount))}</td>${figureCell(n.floorPriceNative, 'quantity', { unit: n.nativeTokenSymbol ?? undefined })}${figureCell(n.nativePriceUsd, 'usd-price')}${figureCell(n.valueUsd, 'usd')}${figureCell(n.realizedPnl, 'quantity', { signed: true })}${figureCell(n.unrealizedPnl, 'quantity', { signed: true })}</tr>`,
  );
  const more = shownNote('collections', 'most valuable', nfts.length, count);
  return html`${more}<p class="note">Refresh of ${utc(nfts[0]!.snapshotAt)} UTC. Value = count × floor × USD price of the chain's native token; unknown (—) when the floor or that price is missing. PnL is empty unless the address is refreshed with --pnl.</p>
<div class="chart">${chart}</div>
<table class="nfts"><thead><tr><th>collection</th><th>chain</th><th class="num">count</th><th class="num">floor</th><th class="num">native price, USD</th><th class="num">value, USD</th><th class="num">realized PnL</th><th class="num">unrealized PnL</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function seriesRow(p: PortfolioPoint): Html {
  return html`<tr><td class="time">${utc(p.time)}</td>${figureCell(p.positionsValue, 'usd')}${figureCell(p.nftValueUsd, 'usd')}${figureCell(p.totalValue, 'usd')}${figureCell(p.pnl, 'usd', { signed: true })}<td class="time">${utc(p.positionsSnapshotAt)}</td><td class="time">${utc(p.nftSnapshotAt)}</td></tr>`;
}

/** One row for a run of consecutive times without a refresh. */
function gapRow(first: PortfolioPoint, last: PortfolioPoint, count: number): Html {
  const text =
    count === 1
      ? 'gap: no refresh at or before this time'
      : `gap: no refresh at or before any of these ${count} times, to ${utc(last.time)}`;
  return html`<tr class="gap" data-rows="${count}"><td class="time">${utc(first.time)}</td><td colspan="6">${text}</td></tr>`;
}

/**
 * The series as a table: each run of gaps as one row, and at most MAX_SERIES_TABLE_ROWS rows with
 * values (every k-th one past that, the last one always).
 */
function seriesTable(report: PortfolioReport): Html {
  const { series, range } = report;
  const valued = series.reduce((count, p) => count + (p.totalValue === null ? 0 : 1), 0);
  const every = Math.max(1, Math.ceil(valued / MAX_SERIES_TABLE_ROWS));
  const rows: Html[] = [];
  let gapStart = -1;
  let seen = 0;
  series.forEach((p, index) => {
    if (p.totalValue === null) {
      if (gapStart < 0) gapStart = index;
      if (series[index + 1]?.totalValue !== null) {
        rows.push(gapRow(series[gapStart]!, p, index - gapStart + 1));
        gapStart = -1;
      }
      return;
    }
    if (seen % every === 0 || index === series.length - 1) rows.push(seriesRow(p));
    seen += 1;
  });
  const note =
    every > 1
      ? html`<p class="note thinned" data-every="${every}">${valued.toLocaleString('en-US')} times with a value: one row every ${every} (every ${formatSpan((every * range.intervalMs) / 1000)}) and the last. Every row is in the CSV and JSON forms (--format csv, --format json).</p>`
      : '';
  return html`${note}<table class="series"><thead><tr><th>time, UTC</th><th class="num">positions value (net), USD</th><th class="num">NFT value, USD</th><th class="num">total value, USD</th><th class="num">PnL since first, USD</th><th>positions refresh</th><th>NFT refresh</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The value over time, from the first time with a value: a range that starts before the first refresh says so. */
function valueSection(report: PortfolioReport): Html {
  const { series, range } = report;
  const firstIndex = series.findIndex((p) => p.totalValue !== null);
  const first = series[firstIndex];
  const from = first ? first.time : range.from;
  const lead = !first
    ? html`<p class="note no-refresh">No refresh of this address at or before ${utc(range.to)} UTC: nothing to chart.</p>`
    : firstIndex > 0
      ? html`<p class="note starts-later" data-gaps="${firstIndex}">The address's first refresh in force is at ${utc(first.time)} UTC: the ${firstIndex} earlier time(s) of the range, from ${utc(range.from)} UTC, have no value, and the chart starts there.</p>`
      : '';
  const points = (value: (p: PortfolioPoint) => string | null) =>
    series.map((p) => ({ time: p.time, value: value(p) }));
  const chart = renderTimeChartSvg(
    [
      { name: 'total', className: 'series-total', color: '#2563eb', points: points((p) => p.totalValue) },
      { name: 'positions', className: 'series-positions', color: '#8250df', points: points((p) => p.positionsValue) },
      { name: 'NFTs', className: 'series-nfts', color: '#bf8700', points: points((p) => p.nftValueUsd) },
    ],
    { from, to: range.to, title: `Value over time of ${report.address}` },
  );
  return html`${lead}<p class="note">At each time, the latest refresh at or before it (no interpolation); PnL is the change of the total since the first row with a value.</p><div class="chart">${chart}</div>`;
}

/** The whole portfolio report as one HTML document. */
export function renderPortfolioHtml(report: PortfolioReport, links: { back?: string } = {}): string {
  const { series, range } = report;
  const last = series.findLast((p) => p.totalValue !== null);
  const gaps = series.reduce((count, p) => count + (p.totalValue === null ? 1 : 0), 0);
  const summary = html`<dl class="summary">
<div><dt>total value at the end</dt><dd class="total">${figureText(last?.totalValue ?? null, 'usd')}</dd></div>
<div><dt>PnL over the range</dt><dd class="pnl">${figureText(last?.pnl ?? null, 'usd', { signed: true })}</dd></div>
<div><dt>positions value (net of debt)</dt><dd>${figureText(last?.positionsValue ?? null, 'usd')}</dd></div>
<div><dt>NFT value, USD</dt><dd>${figureText(last?.nftValueUsd ?? null, 'usd')}</dd></div>
<div><dt>rows (gaps)</dt><dd>${series.length.toLocaleString('en-US')} (${gaps.toLocaleString('en-US')})</dd></div>
</dl>`;
  const heading = html`<header><h1>Portfolio report</h1><div class="meta"><span class="mono">${report.address}</span> · <span class="watch">${addressFormatLabel(report.address)} address: ${report.watch ? describeAddressWatch(report.watch) : 'not watched'}</span><br>${rangeText(range)} · generated ${utc(report.generatedAt)} UTC${links.back ? html` · <a href="${links.back}">status page</a>` : ''}</div></header>`;
  const body = html`<section id="summary"><h2>Summary</h2>${summary}</section>
<section id="value"><h2>Value over time (USD)</h2>${valueSection(report)}</section>
<section id="positions"><h2>PnL by position</h2>${positionsSection(report)}</section>
<section id="nfts"><h2>NFT value</h2>${nftSection(report)}</section>
<section id="series"><h2>Portfolio over time</h2>${seriesTable(report)}</section>
`;
  return pageStart(`Portfolio report: ${report.address}`, heading, body) + PAGE_END;
}

function tokenName(token: PriceReportToken): string {
  return token.symbol ?? shortCoin(token.coinType);
}

/** The start of the price report document: its header and the list of tokens. */
export function priceHtmlStart(report: PriceReport): string {
  const heading = html`<header><h1>Price report</h1><div class="meta">${report.tokens.length} token(s) · ${rangeText(report.range)} (buckets of [time, time + ${report.range.interval}), the last ending at the range's end) · generated ${utc(report.generatedAt)} UTC</div></header>`;
  const list = html`<section id="tokens"><h2>Tokens</h2><table><thead><tr><th>symbol</th><th>chain</th><th>token</th></tr></thead><tbody>${report.tokens.map(
    (token) =>
      html`<tr><td>${tokenName(token)}</td><td>${token.chain}</td><td class="mono">${idText(token.coinType)}</td></tr>`,
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
  const last = rows.findLast((row) => !row.gap);
  const table = rows.map((row) =>
    row.gap
      ? html`<tr class="gap"><td class="time">${utc(row.time)}</td><td colspan="4">gap: no price</td><td class="num">0</td></tr>`
      : html`<tr><td class="time">${utc(row.time)}</td>${figureCell(row.open, 'usd-price')}${figureCell(row.high, 'usd-price')}${figureCell(row.low, 'usd-price')}${figureCell(row.close, 'usd-price')}<td class="num">${row.samples}</td></tr>`,
  );
  return `${
    html`<section class="token" data-coin-type="${token.coinType}" data-chain="${token.chain}"><h2>${name} <span class="muted">on ${token.chain}</span> <span class="coin mono muted">${token.coinType}</span></h2>
<dl class="summary"><div><dt>first open</dt><dd>${figureText(first?.open ?? null, 'usd-price')}</dd></div><div><dt>last close</dt><dd>${figureText(last?.close ?? null, 'usd-price')}</dd></div><div><dt>buckets (gaps)</dt><dd>${rows.length} (${gaps})</dd></div><div><dt>prices</dt><dd>${samples}</dd></div></dl>
<div class="chart">${chart}</div>
<table class="ohlc"><thead><tr><th>bucket start, UTC</th><th class="num">open</th><th class="num">high</th><th class="num">low</th><th class="num">close</th><th class="num">prices</th></tr></thead><tbody>${table}</tbody></table></section>`
      .text
  }\n`;
}
