/**
 * Report rows as CSV (RFC 4180, safe in a spreadsheet) and JSON. A cell is what the database gave:
 * numeric text as it is (never a float), a time, a count, a flag, or null (unknown: empty / null).
 */
export type Cell = string | number | boolean | Date | null;

export interface Column<Row> {
  name: string;
  value(row: Row): Cell;
}

/** What a spreadsheet reads as the start of a formula (OWASP, CSV injection): =, +, -, @, tab, CR. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number, as numeric columns hold: a spreadsheet reads it as a number, never a formula. */
const DECIMAL_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * One CSV field: text a spreadsheet would run as a formula (`=HYPERLINK(...)`) gets a leading quote
 * (OWASP), a number stays a number (`-12.5`); quoted when it holds a comma, a quote, CR, LF or another
 * locale's separator (`;`, tab), so that no cell can be split into one that starts a formula.
 */
export function csvField(cell: Cell): string {
  if (cell === null) return '';
  const value = String(jsonCell(cell));
  const text = FORMULA_START.test(value) && !DECIMAL_NUMBER.test(value) ? `'${value}` : value;
  return /[",;\t\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record, ended by CRLF as RFC 4180 has it. */
export function csvRecord(cells: readonly Cell[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}

/** A JSON value of a cell: numbers as strings (exact), times as ISO 8601 UTC, flags as booleans. */
export function jsonCell(cell: Cell): string | boolean | null {
  if (cell === null || typeof cell === 'boolean') return cell;
  return cell instanceof Date ? cell.toISOString() : String(cell);
}

export function jsonRow<Row>(columns: readonly Column<Row>[], row: Row): Record<string, string | boolean | null> {
  return Object.fromEntries(columns.map((column) => [column.name, jsonCell(column.value(row))]));
}
