import { is } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { getTableConfig, getViewConfig, isPgEnum, isPgView, PgTable } from 'drizzle-orm/pg-core';
import type { Sql } from '../../src/db/client.ts';

/**
 * A schema as one line per fact (a table, a column with its type and nullability, a primary key, a
 * unique constraint, an index, a foreign key, a check, an enum with its values, a view and its
 * columns), so that two
 * descriptions compare as sets and a difference reads as the fact itself.
 */
export type SchemaShape = Set<string>;

/** Serial types are their integer type once created. */
const SERIAL: Record<string, string> = { serial: 'integer', bigserial: 'bigint', smallserial: 'smallint' };
const sqlType = (column: PgColumn) => SERIAL[column.getSQLType()] ?? column.getSQLType();
const list = (names: string[]) => `(${names.join(', ')})`;

/** What the Drizzle schema declares: every pgTable and pgView among `modules`' exports. */
export function drizzleShape(modules: Record<string, unknown>): SchemaShape {
  const shape: SchemaShape = new Set();
  for (const value of Object.values(modules)) {
    if (is(value, PgTable)) {
      const table = getTableConfig(value);
      const t = table.name;
      shape.add(`table ${t}`);
      for (const column of table.columns) {
        shape.add(`column ${t}.${column.name} ${sqlType(column)} ${column.notNull ? 'not null' : 'null'}`);
        if (column.primary) shape.add(`primary key ${t} ${t}_pkey ${list([column.name])}`);
        if (column.isUnique) shape.add(`unique ${t} ${column.uniqueName} ${list([column.name])}`);
      }
      for (const key of table.primaryKeys)
        shape.add(`primary key ${t} ${key.getName()} ${list(key.columns.map((column) => column.name))}`);
      for (const unique of table.uniqueConstraints)
        shape.add(`unique ${t} ${unique.getName()} ${list(unique.columns.map((column) => column.name))}`);
      for (const { config } of table.indexes) {
        // An indexed column carries its name; an expression (SQL) has none.
        const columns = config.columns.map((column) =>
          'name' in column && typeof column.name === 'string' ? column.name : 'expression',
        );
        shape.add(
          `index ${t} ${config.name}${config.unique ? ' unique' : ''} ${list(columns)}${config.where ? ' partial' : ''}`,
        );
      }
      for (const key of table.foreignKeys) {
        const { columns, foreignTable, foreignColumns } = key.reference();
        shape.add(
          `foreign key ${t} ${key.getName()} ${list(columns.map((c) => c.name))} -> ${getTableConfig(foreignTable).name} ${list(foreignColumns.map((c) => c.name))}`,
        );
      }
      for (const check of table.checks) shape.add(`check ${t} ${check.name}`);
    } else if (isPgEnum(value)) {
      shape.add(`enum ${value.enumName} ${list(value.enumValues)}`);
    } else if (isPgView(value)) {
      const view = getViewConfig(value);
      shape.add(`view ${view.name}`);
      for (const column of Object.values(view.selectedFields) as PgColumn[])
        shape.add(`column ${view.name}.${column.name} ${sqlType(column)}`);
    }
  }
  return shape;
}

/**
 * What the database holds in `schema`, in the same lines: tables (partitioned ones once, not their
 * partitions) and views, their columns, constraints and the indexes no constraint owns.
 */
export async function databaseShape(sql: Sql, schema = 'public'): Promise<SchemaShape> {
  const shape: SchemaShape = new Set();
  const relations = await sql<{ name: string; kind: string }[]>`
    select c.relname as name, c.relkind as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v') and not c.relispartition`;
  const views = new Set(relations.filter((r) => r.kind === 'v').map((r) => r.name));
  for (const { name, kind } of relations) shape.add(`${kind === 'v' ? 'view' : 'table'} ${name}`);
  const columns = await sql<{ relation: string; name: string; type: string; notNull: boolean }[]>`
    select c.relname as relation, a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as "notNull"
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v') and not c.relispartition and a.attnum > 0 and not a.attisdropped`;
  for (const column of columns) {
    const nullability = views.has(column.relation) ? '' : column.notNull ? ' not null' : ' null';
    shape.add(`column ${column.relation}.${column.name} ${column.type}${nullability}`);
  }
  const constraints = await sql<
    {
      table: string;
      name: string;
      kind: string;
      columns: string[];
      target: string | null;
      targetColumns: string[] | null;
    }[]
  >`
    select r.relname as table, c.conname as name, c.contype as kind,
           array(select a.attname from unnest(c.conkey) with ordinality k(n, i) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i)::text[] as columns,
           (select relname from pg_class where oid = c.confrelid) as target,
           array(select a.attname from unnest(c.confkey) with ordinality k(n, i) join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i)::text[] as "targetColumns"
    from pg_constraint c join pg_class r on r.oid = c.conrelid join pg_namespace n on n.oid = r.relnamespace
    where n.nspname = ${schema} and not r.relispartition and c.contype in ('p', 'u', 'f', 'c') and c.conparentid = 0`;
  for (const c of constraints) {
    if (c.kind === 'p') shape.add(`primary key ${c.table} ${c.name} ${list(c.columns)}`);
    if (c.kind === 'u') shape.add(`unique ${c.table} ${c.name} ${list(c.columns)}`);
    if (c.kind === 'f')
      shape.add(`foreign key ${c.table} ${c.name} ${list(c.columns)} -> ${c.target} ${list(c.targetColumns ?? [])}`);
    if (c.kind === 'c') shape.add(`check ${c.table} ${c.name}`);
  }
  const indexes = await sql<{ table: string; name: string; unique: boolean; columns: string[]; partial: boolean }[]>`
    select t.relname as table, i.relname as name, x.indisunique as unique,
           array(select coalesce(a.attname, 'expression') from unnest(x.indkey::int2[]) with ordinality k(n, o)
                 left join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.n and k.n > 0 order by k.o)::text[] as columns,
           x.indpred is not null as partial
    from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = ${schema} and not t.relispartition
      and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid and c.contype in ('p', 'u'))`;
  const enums = await sql<{ name: string; labels: string[] }[]>`
    select t.typname as name, array(select e.enumlabel from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder)::text[] as labels
    from pg_type t join pg_namespace n on n.oid = t.typnamespace where n.nspname = ${schema} and t.typtype = 'e'`;
  for (const type of enums) shape.add(`enum ${type.name} ${list(type.labels)}`);
  for (const index of indexes)
    shape.add(
      `index ${index.table} ${index.name}${index.unique ? ' unique' : ''} ${list(index.columns)}${index.partial ? ' partial' : ''}`,
    );
  return shape;
}

/** The lines only one side has, each marked with the side: empty when they agree. */
export function shapeDifferences(schema: SchemaShape, database: SchemaShape): string[] {
  return [
    ...[...schema].filter((line) => !database.has(line)).map((line) => `schema only: ${line}`),
    ...[...database].filter((line) => !schema.has(line)).map((line) => `database only: ${line}`),
  ].sort();
}
