import { describe, expect, it } from 'vitest';
import { readDecimal, readInteger, undocumentedDecimal } from '../../src/normalize/wire-fields.ts';
import { DriftLog } from '../../src/normalize/schema-drift.ts';

function read(raw: unknown) {
  const drifts = new DriftLog();
  return { ...readDecimal(raw, 'positions.fee', drifts), drifts: drifts.list() };
}

describe('a numeric field in whatever shape it comes', () => {
  it('reads a number as it is, with no drift', () => {
    expect(read(2.79)).toEqual({ value: '2.79', drifts: [] });
    expect(read(null)).toEqual({ value: null, drifts: [] });
    expect(read(undefined)).toEqual({ value: null, drifts: [] });
  });

  it('reads a numeric string exactly, however long, as drift', () => {
    const long = '1234567890123456789012345678901234567890.0000000001';
    expect(read(long)).toEqual({
      value: long,
      drifts: [{ field: 'positions.fee', shape: 'numeric_string', count: 1 }],
    });
  });

  it('reads { value }, nested ones too, as drift', () => {
    expect(read({ value: 2.79 })).toMatchObject({ value: '2.79', drifts: [{ shape: 'value_object' }] });
    expect(read({ value: { value: '2.79' } })).toMatchObject({ value: '2.79', drifts: [{ shape: 'value_object' }] });
  });

  it('leaves any other shape null and returns it as received, as drift with its JSON type', () => {
    for (const [raw, shape] of [
      [true, 'boolean'],
      [[1, 2], 'array'],
      ['cheap', 'string'],
      [{ value: 2.79, currency: 'USD' }, 'object'],
      [{ value: 'x' }, 'object'],
      ['1e100000', 'string'],
    ] as const) {
      expect(read(raw)).toEqual({ value: null, unread: raw, drifts: [{ field: 'positions.fee', shape, count: 1 }] });
    }
  });

  it('reads an integer field the same way, a non-integer as unread', () => {
    const drifts = new DriftLog();
    expect(readInteger('9', 'prices.decimals', drifts)).toEqual({ value: 9 });
    expect(readInteger(9.5, 'prices.decimals', drifts)).toEqual({ value: null, unread: 9.5 });
    expect(drifts.list()).toEqual([
      { field: 'prices.decimals', shape: 'number', count: 1 },
      { field: 'prices.decimals', shape: 'numeric_string', count: 1 },
    ]);
  });

  it('reads an undocumented number (a health factor) in every shape numbers come in, anything else as none', () => {
    expect(['1.5', 1.5, { value: '1.5' }, { value: 1.5 }, ' 1.50 '].map(undocumentedDecimal)).toEqual(
      Array(5).fill('1.5'),
    );
    expect([true, 'x', '', { v: 1 }, null, undefined, [1], '1e100000'].map(undocumentedDecimal)).toEqual(
      Array(8).fill(null),
    );
  });
});
