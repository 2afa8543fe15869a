import { getTableColumns, sql, type SQL, type Table } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';

// Pieces of ON CONFLICT DO UPDATE statements that touch a row only when a value moves.

/** `excluded.<column>` when the incoming row is at least as new as the stored one, else the stored value. */
export function newest(column: AnyPgColumn, newer: SQL): SQL {
  return sql`case when ${newer} then excluded.${sql.identifier(column.name)} else ${column} end`;
}

export function excluded(column: AnyPgColumn): SQL {
  return sql`excluded.${sql.identifier(column.name)}`;
}

/** (stored columns) is distinct from (new values): the row changes only when something moves. */
export function changes(assignments: [AnyPgColumn, SQL][]): SQL {
  const stored = sql.join(
    assignments.map(([column]) => sql`${column}`),
    sql`, `,
  );
  const incoming = sql.join(
    assignments.map(([, value]) => value),
    sql`, `,
  );
  return sql`(${stored}) is distinct from (${incoming})`;
}

/** The `set` of an upsert from (column, value) pairs. */
export function setOf(table: Table, assignments: [AnyPgColumn, SQL][]): Record<string, SQL> {
  const keyOf = new Map<unknown, string>(Object.entries(getTableColumns(table)).map(([key, column]) => [column, key]));
  return Object.fromEntries(assignments.map(([column, value]) => [keyOf.get(column)!, value]));
}
