import { InvalidInputError } from '../errors.ts';

/**
 * The records of a CSV text (RFC 4180: fields separated by commas, records by CRLF or LF, a field
 * quoted when it holds a comma, a quote, doubled, or a line break), keyed by the header's names
 * (trimmed, lower-case), each with the line it starts on. Blank lines are skipped.
 */
export function parseCsvRecords(text: string, source: string) {
  const rows: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let field = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  const endRecord = () => {
    cells.push(field);
    if (cells.length > 1 || cells[0]!.trim() !== '') rows.push({ line: start, cells });
    cells = [];
    field = '';
  };
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else field += char;
      if (char === '\n') line += 1;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      cells.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      endRecord();
      line += 1;
      start = line;
    } else field += char;
  }
  if (quoted)
    throw new InvalidInputError(`invalid CSV file ${source}: a quoted field opened on line ${start} is not closed`);
  if (field !== '' || cells.length > 0) endRecord();
  const [head, ...body] = rows;
  if (!head) throw new InvalidInputError(`invalid CSV file ${source}: no header`);
  const header = head.cells.map((name) => name.trim().toLowerCase());
  const records = body.map(({ line: at, cells: values }) => {
    if (values.length !== header.length) {
      throw new InvalidInputError(
        `invalid CSV file ${source}: line ${at} has ${values.length} field(s), the header ${header.length}`,
      );
    }
    return { line: at, fields: Object.fromEntries(header.map((name, k) => [name, values[k]!.trim()])) };
  });
  return { header, records };
}
