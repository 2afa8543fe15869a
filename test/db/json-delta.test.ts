import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/** chaintap_jsonb_delta / chaintap_jsonb_patch (migration 0006): how snapshots store what repeats once. */
describe('jsonb delta and patch', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const cases: [reference: unknown, value: unknown, delta: unknown][] = [
    [null, null, null],
    [{ a: 1 }, { a: 1 }, null],
    [{ a: 1, b: 'x' }, { a: 2, b: 'x' }, { a: 2 }],
    [{ a: 1 }, { a: 1, c: [1, { d: null }] }, { c: [1, { d: null }] }],
    [{ a: 1, b: 2 }, { a: 1 }, [{ a: 1 }]],
    [{ a: 1 }, null, [null]],
    [null, { a: 1 }, { a: 1 }],
    [{ a: 1 }, {}, [{}]],
    [{}, {}, null],
    [{}, { a: null }, { a: null }],
    [{ a: { x: 1, y: 2 } }, { a: { x: 1 } }, { a: { x: 1 } }],
    [{ a: 1 }, [1, 2], [[1, 2]]],
    [{ a: 1 }, 'text', ['text']],
    [null, 7, [7]],
  ];

  it('stores NULL for a repeat, the changed or new keys for a change, the whole value otherwise; patch gives the value back', async () => {
    for (const [reference, value, delta] of cases) {
      const [row] = await database.sql<{ delta: unknown; back: unknown }[]>`
        select chaintap_jsonb_delta(r, v) as delta, chaintap_jsonb_patch(r, chaintap_jsonb_delta(r, v)) as back
        from (select ${json(reference)}::jsonb as r, ${json(value)}::jsonb as v) x`;
      expect(row, JSON.stringify({ reference, value })).toEqual({ delta, back: value });
    }
  });
});

function json(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}
