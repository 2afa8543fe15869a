import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyInto, copyText } from '../../bench/support/copy.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('copyInto', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
    await database.sql`create table copied (id int primary key, label text, at timestamptz)`;
  });
  afterAll(() => database.drop());

  it('writes text with tabs, newlines, backslashes, nulls and times intact', async () => {
    const at = new Date('2026-11-21T12:00:00.123Z');
    await database.sql.begin((sql) =>
      copyInto(
        sql,
        'copied',
        ['id', 'label', 'at'],
        copyText([
          [1, 'a\tb\nc\\d', at],
          [2, null, null],
        ]),
      ),
    );
    await expect(database.sql`select id, label, at from copied order by id`).resolves.toEqual([
      { id: 1, label: 'a\tb\nc\\d', at },
      { id: 2, label: null, at: null },
    ]);
  });

  it('rejects with the server error when the data fails after the last chunk, and the transaction goes on', async () => {
    const outcome = await database.sql.begin(async (sql) => {
      const failure = await sql
        .savepoint((sp) => copyInto(sp, 'copied', ['id'], copyText([[3], [1]])))
        .catch((error: { code?: string }) => error.code);
      const [row] = await sql`select count(*)::int as n from copied`;
      return { failure, rows: row!.n };
    });
    expect(outcome).toEqual({ failure: '23505', rows: 2 });
  });

  it('rejects when the failure comes while the data is still streaming', async () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => [i + 10]);
    const failure = await database.sql
      .begin((sql) => copyInto(sql, 'copied', ['id'], copyText([[1], ...rows])))
      .catch((error: { code?: string }) => error.code);
    expect(failure).toBe('23505');
    await expect(database.sql`select count(*)::int as n from copied`).resolves.toEqual([{ n: 2 }]);
  });
});
