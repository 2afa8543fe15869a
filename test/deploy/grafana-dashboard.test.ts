import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const DASHBOARD = join(import.meta.dirname, '../../docs/grafana/chaintap.json');

/** Every SQL text of the dashboard's Postgres panels and variables, with where it is. */
function postgresQueries(): { where: string; sql: string }[] {
  const found: { where: string; sql: string }[] = [];
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) node.forEach((item, index) => walk(item, `${where}[${index}]`));
    else if (node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      const label =
        typeof record.title === 'string' ? record.title : typeof record.name === 'string' ? record.name : where;
      const postgres = (record.datasource as { type?: string } | undefined)?.type === 'grafana-postgresql-datasource';
      for (const key of ['rawSql', 'query'] as const) {
        if (postgres && typeof record[key] === 'string') found.push({ where: label, sql: record[key] as string });
      }
      for (const [key, value] of Object.entries(record)) walk(value, `${label}.${key}`);
    }
  };
  walk(JSON.parse(readFileSync(DASHBOARD, 'utf8')), 'dashboard');
  return found;
}

/** Grafana's macros and the dashboard's variables, as Grafana would expand them. */
function expand(sql: string): string {
  return sql
    .replace(/\$__timeFilter\(([^)]+)\)/g, "$1 between now() - interval '1 day' and now()")
    .replace(/\$__timeFrom\(\)/g, "(now() - interval '1 day')")
    .replace(/\$__timeTo\(\)/g, 'now()')
    .replace(/\$coin_type/g, "'0x2::sui::SUI'")
    .replace(/\$owner/g, "'0x1'");
}

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe('the provisioned Grafana dashboard', () => {
  it('runs every Postgres query as chaintap_reader, the role its data source logs in with', async () => {
    const queries = postgresQueries();
    expect(queries.length).toBeGreaterThan(10);
    const failures: string[] = [];
    await database.sql.begin(async (sql) => {
      await sql`set local role chaintap_reader`;
      for (const { where, sql: text } of queries) {
        expect(expand(text), where).not.toContain('$');
        try {
          await sql.savepoint((sp) => sp.unsafe(expand(text)));
        } catch (error) {
          failures.push(`${where}: ${(error as Error).message}`);
        }
      }
    });
    expect(failures).toEqual([]);
  });
});
