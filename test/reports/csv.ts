/**
 * A strict RFC 4180 reader for the tests: every record ends with CRLF, quoted fields may hold
 * commas, quotes (doubled) and line breaks, and every record has as many fields as the header.
 * Returns the records as objects keyed by the header ('' for an empty field).
 */
export function parseCsv(text: string): { header: string[]; records: Record<string, string>[] } {
  const rows: string[][] = [];
  let field = '';
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"' && field === '') {
      i += 1;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"' && text[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (text[i] === '"') {
          i += 1;
          break;
        } else field += text[i++];
      }
      if (text[i] !== ',' && text[i] !== '\r') throw new Error(`text after a closing quote at ${i}`);
    } else if (text[i] === ',') {
      row.push(field);
      field = '';
      i += 1;
    } else if (text[i] === '\r') {
      if (text[i + 1] !== '\n') throw new Error(`CR without LF at ${i}`);
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else if (text[i] === '\n') {
      throw new Error(`LF without CR at ${i}`);
    } else if (text[i] === '"') {
      throw new Error(`quote inside an unquoted field at ${i}`);
    } else field += text[i++];
  }
  if (field !== '' || row.length > 0) throw new Error('the last record does not end with CRLF');
  const [header, ...data] = rows;
  if (!header) throw new Error('no header');
  for (const [index, record] of data.entries()) {
    if (record.length !== header.length)
      throw new Error(`record ${index + 1} has ${record.length} fields, the header ${header.length}`);
  }
  return {
    header,
    records: data.map((record) => Object.fromEntries(header.map((name, index) => [name, record[index]!]))),
  };
}
