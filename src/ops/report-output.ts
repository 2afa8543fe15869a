import { ChaintapError } from '../errors.ts';
import type { ReportSink } from './report-file.ts';
import { PAGE_END, priceHtmlStart, priceHtmlToken, renderPortfolioHtml } from './report-html.ts';
import {
  ADDRESS_COLUMNS,
  NFT_COLUMNS,
  POSITION_COLUMNS,
  SERIES_COLUMNS,
  type PortfolioReport,
} from './report-portfolio.ts';
import { PRICE_COLUMNS, type PriceReport, type PriceReportRow, type PriceReportToken } from './report-prices.ts';
import type { ReportFormat, ReportRange } from './report-request.ts';
import { csvRecord, jsonRow, type Cell, type Column } from './report-table.ts';

/** The reports in three formats, written to a sink; CSV and JSON carry the same rows and column names. */

function rangeFields({ range, generatedAt }: { range: ReportRange; generatedAt: Date }) {
  const { from, to, interval } = range;
  return { from: from.toISOString(), to: to.toISOString(), interval, generated_at: generatedAt.toISOString() };
}

/**
 * The portfolio's CSV is one table (RFC 4180 has one header): `section` says what a record is
 * (`series`, `position` or `nft`), and each section fills its own columns of the union.
 */
export const PORTFOLIO_CSV_HEADER: string[] = [
  'section',
  ...new Set([...SERIES_COLUMNS, ...POSITION_COLUMNS, ...NFT_COLUMNS, ...ADDRESS_COLUMNS].map((column) => column.name)),
];

function portfolioCsvRecord<Row>(section: string, columns: Column<Row>[], row: Row): string {
  const cells = new Map<string, Cell>(columns.map((column) => [column.name, column.value(row)]));
  cells.set('section', section);
  return csvRecord(PORTFOLIO_CSV_HEADER.map((name) => cells.get(name) ?? null));
}

/** JSON rows one per line, so that a large array is written as it is read. */
function jsonLines<Row>(columns: Column<Row>[], rows: Row[]): string {
  return rows.map((row) => JSON.stringify(jsonRow(columns, row))).join(',\n');
}

/** Writes the portfolio report; returns the rows written (the address, series, positions and collections). */
export async function writePortfolioReport(
  report: PortfolioReport,
  format: ReportFormat,
  sink: ReportSink,
): Promise<number> {
  const { series, positions, nfts } = report;
  // The address (a record of the CSV, the head of the JSON and HTML) counts as one row.
  let written = 1 + series.length;
  if (format === 'csv') {
    await sink.write(csvRecord(PORTFOLIO_CSV_HEADER));
    await sink.write(portfolioCsvRecord('address', ADDRESS_COLUMNS, report));
    for (const point of series) await sink.write(portfolioCsvRecord('series', SERIES_COLUMNS, point));
    for await (const rows of positions.all()) {
      written += rows.length;
      await sink.write(rows.map((row) => portfolioCsvRecord('position', POSITION_COLUMNS, row)).join(''));
    }
    for await (const rows of nfts.all()) {
      written += rows.length;
      await sink.write(rows.map((row) => portfolioCsvRecord('nft', NFT_COLUMNS, row)).join(''));
    }
  } else if (format === 'json') {
    const head = JSON.stringify({ report: 'portfolio', ...jsonRow(ADDRESS_COLUMNS, report), ...rangeFields(report) });
    await sink.write(`${head.slice(0, -1)},\n"series":[\n${jsonLines(SERIES_COLUMNS, series)}\n],\n"positions":[\n`);
    written += await writeJsonRows(sink, POSITION_COLUMNS, positions.all());
    await sink.write('\n],\n"nfts":[\n');
    written += await writeJsonRows(sink, NFT_COLUMNS, nfts.all());
    await sink.write('\n]}\n');
  } else {
    await sink.write(renderPortfolioHtml(report));
    written += positions.count + nfts.count;
  }
  return written;
}

/** The rows of a cursor as JSON lines, a batch at a time; returns how many. */
async function writeJsonRows<Row>(sink: ReportSink, columns: Column<Row>[], batches: AsyncIterable<Row[]>) {
  let written = 0;
  for await (const rows of batches) {
    await sink.write(`${written > 0 ? ',\n' : ''}${jsonLines(columns, rows)}`);
    written += rows.length;
  }
  return written;
}

/**
 * Writes the price report batch by batch from each token's cursor, holding one batch at a time (HTML:
 * one token's buckets); `signal` stops it between batches. Returns the rows written.
 */
export async function writePriceReport(
  report: PriceReport,
  format: ReportFormat,
  sink: ReportSink,
  signal?: AbortSignal,
): Promise<number> {
  let written = 0;
  const batches = async function* (token: PriceReportToken) {
    for await (const rows of report.rows(token)) {
      if (signal?.aborted) throw new ChaintapError('stopped by a signal before the end of the report');
      written += rows.length;
      yield rows;
    }
  };
  if (format === 'csv') {
    await sink.write(csvRecord(PRICE_COLUMNS.map((column) => column.name)));
    for (const token of report.tokens) {
      for await (const rows of batches(token))
        await sink.write(rows.map((row) => csvRecord(PRICE_COLUMNS.map((column) => column.value(row)))).join(''));
    }
  } else if (format === 'json') {
    const head = JSON.stringify({
      report: 'prices',
      ...rangeFields(report),
      tokens: report.tokens.map((token) => ({ coin_type: token.coinType, symbol: token.symbol, chain: token.chain })),
    });
    await sink.write(`${head.slice(0, -1)},\n"rows":[\n`);
    let first = true;
    for (const token of report.tokens) {
      for await (const rows of batches(token)) {
        await sink.write(`${first ? '' : ',\n'}${jsonLines(PRICE_COLUMNS, rows)}`);
        first = false;
      }
    }
    await sink.write('\n]}\n');
  } else {
    await sink.write(priceHtmlStart(report));
    for (const token of report.tokens) {
      const rows: PriceReportRow[] = [];
      for await (const batch of batches(token)) rows.push(...batch);
      await sink.write(priceHtmlToken(report, token, rows));
    }
    await sink.write(PAGE_END);
  }
  return written;
}
