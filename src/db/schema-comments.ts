import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sql } from './client.ts';

/**
 * What docs/schema.md says of every table, view, column and enum type, as `npm run db:comments`
 * writes it beside the migrations: the descriptions `chaintap migrate` gives the database
 * (COMMENT ON), which psql's `\d+` and BI tools show.
 */
export interface SchemaComments {
  relations: Record<string, { description: string; columns: Record<string, string> }>;
  types: Record<string, { values: string[]; description: string }>;
}

export const SCHEMA_COMMENTS_FILE = 'schema-comments.json';

export function readSchemaComments(migrationsFolder: string): SchemaComments {
  return JSON.parse(readFileSync(join(migrationsFolder, SCHEMA_COMMENTS_FILE), 'utf8')) as SchemaComments;
}

/** The public schema as the catalog has it, with the descriptions it holds now (null: none). */
export interface DescribedCatalog {
  /** Tables, views and materialized views (partitions left out: chaintap_describe_partition describes them). */
  relations: { name: string; kind: string; description: string | null }[];
  columns: { relation: string; column: string; description: string | null }[];
  types: { name: string; description: string | null }[];
}

/** `COMMENT ON` target words for each relkind a source may describe. */
const RELATION_KINDS: Record<string, string> = { r: 'table', p: 'table', v: 'view', m: 'materialized view' };

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
/** An escape-string literal: right whatever standard_conforming_strings says. */
const literal = (text: string) => `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/**
 * The COMMENT statements that make the catalog's descriptions equal the source's, for what both
 * know: an object the source names but the schema lacks (a database still being migrated) is left
 * out, and so is one whose description is already right, so a second run has nothing to do.
 */
export function commentStatements(source: SchemaComments, catalog: DescribedCatalog): string[] {
  const statements: string[] = [];
  for (const relation of catalog.relations) {
    const wanted = source.relations[relation.name]?.description;
    if (wanted !== undefined && wanted !== relation.description) {
      statements.push(
        `comment on ${RELATION_KINDS[relation.kind]} public.${quoted(relation.name)} is ${literal(wanted)}`,
      );
    }
  }
  for (const { relation, column, description } of catalog.columns) {
    const wanted = source.relations[relation]?.columns[column];
    if (wanted !== undefined && wanted !== description) {
      statements.push(`comment on column public.${quoted(relation)}.${quoted(column)} is ${literal(wanted)}`);
    }
  }
  for (const type of catalog.types) {
    const wanted = source.types[type.name]?.description;
    if (wanted !== undefined && wanted !== type.description) {
      statements.push(`comment on type public.${quoted(type.name)} is ${literal(wanted)}`);
    }
  }
  return statements;
}

export async function readDescribedCatalog(sql: Sql): Promise<DescribedCatalog> {
  const relations = await sql<DescribedCatalog['relations']>`
    select c.relname as name, c.relkind as kind, obj_description(c.oid, 'pg_class') as description
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm') and not c.relispartition
    order by c.relname`;
  const columns = await sql<DescribedCatalog['columns']>`
    select c.relname as relation, a.attname as column, col_description(c.oid, a.attnum) as description
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm') and not c.relispartition
    order by c.relname, a.attnum`;
  const types = await sql<DescribedCatalog['types']>`
    select t.typname as name, obj_description(t.oid, 'pg_type') as description
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where n.nspname = 'public' and t.typtype = 'e'
    order by t.typname`;
  return { relations: [...relations], columns: [...columns], types: [...types] };
}

/**
 * Gives the public schema the descriptions of `source` where they differ, then its partitions their
 * parents' (chaintap_describe_partition, migration 0021); returns how many descriptions changed.
 * Run by `chaintap migrate` after the migrations, so an existing database gets them too.
 */
export async function applySchemaComments(sql: Sql, source: SchemaComments): Promise<number> {
  const statements = commentStatements(source, await readDescribedCatalog(sql));
  if (statements.length > 0) await sql.unsafe(statements.join(';\n')).simple();
  const [describer] = await sql<{ exists: boolean }[]>`
    select to_regprocedure('chaintap_describe_partition(regclass)') is not null as exists`;
  if (!describer!.exists) return statements.length;
  const [partitions] = await sql<{ changed: number }[]>`
    select coalesce(sum(chaintap_describe_partition(c.oid)), 0)::int as changed
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relispartition and c.relkind in ('r', 'p')`;
  return statements.length + partitions!.changed;
}
