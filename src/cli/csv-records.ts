import { CsvError, parse, type Info } from 'csv-parse/sync';
import { InvalidInputError } from '../errors.ts';

/** A record of a CSV text: its fields by the header's names, and the line it is on. */
export interface CsvRecord {
  line: number;
  fields: Record<string, string>;
}

/** What csv-parse's errors mean, in the words of a person who wrote the file. */
const CSV_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed',
  INVALID_OPENING_QUOTE:
    'a quote inside a field that is not quoted (quote the whole field, and double the quotes in it)',
  CSV_INVALID_CLOSING_QUOTE: 'a quoted field goes on after its closing quote',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'a quoted field goes on after its closing quote',
};

/**
 * The records of a CSV text as spreadsheets export it (Excel, LibreOffice, Google Sheets), read by
 * csv-parse: a byte order mark ignored, fields separated by `,` or `;` (whichever the header line
 * uses more), quoted fields (RFC 4180), blank lines and records of empty fields skipped (the
 * trailing `,,,,` rows of a sheet), fields trimmed. Keyed by the header's names (trimmed,
 * lower-case; empty names at its end dropped, as their fields must be). An error names the line and
 * the column.
 */
export function parseCsvRecords(text: string, source: string): { header: string[]; records: CsvRecord[] } {
  const invalid = (line: number, column: string | undefined, problem: string) =>
    new InvalidInputError(`invalid CSV file ${source}: line ${line}${column ? `, column ${column}` : ''}: ${problem}`);
  let rows: { record: string[]; info: Info }[];
  try {
    rows = parse(text, {
      bom: true,
      delimiter: detectDelimiter(text),
      trim: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      // Checked below, where the header's trailing empty names are known.
      relax_column_count: true,
      info: true,
    }) as unknown as typeof rows; // the typings know no `info` overload
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const { lines, column } = error as CsvError & { lines?: number; column?: number };
    const problem = CSV_PROBLEMS[error.code] ?? error.message;
    throw invalid(lines ?? 0, typeof column === 'number' ? String(column + 1) : undefined, problem);
  }
  const [head, ...body] = rows;
  if (!head) throw new InvalidInputError(`invalid CSV file ${source}: no header`);
  const header = head.record.map((name) => name.toLowerCase());
  while (header.length > 0 && header.at(-1) === '') header.pop();
  const records = body.map(({ record, info }) => {
    // Fields past the header's are allowed when empty (a sheet's stray empty columns).
    const filled = record.findLastIndex((value) => value !== '') + 1;
    const count = record.length < header.length ? record.length : Math.max(filled, header.length);
    if (count !== header.length) {
      throw new InvalidInputError(
        `invalid CSV file ${source}: line ${info.lines} has ${count} field(s), the header ${header.length}`,
      );
    }
    // No value of a watchlist spans lines; refused, they never shift the line numbers said of the records after.
    const broken = record.findIndex((value) => /[\r\n]/.test(value));
    if (broken !== -1) throw invalid(info.lines, `${broken + 1} (${header[broken]})`, 'a line break inside a field');
    return { line: info.lines, fields: Object.fromEntries(header.map((column, k) => [column, record[k]!])) };
  });
  return { header, records };
}

/** `;` when the header line has more of them than commas (Excel's CSV where the decimal mark is a comma), else `,`. */
function detectDelimiter(text: string): ',' | ';' {
  // The first line with something on it, found without splitting a file of any length.
  const headerLine = /[^\r\n]*\S[^\r\n]*/.exec(text)?.[0] ?? '';
  const count = (char: string) => headerLine.split(char).length - 1;
  return count(';') > count(',') ? ';' : ',';
}
