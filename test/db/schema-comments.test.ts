import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, runMigrations } from '../../src/db/migrate.ts';
import { applySchemaComments, readSchemaComments, SCHEMA_COMMENTS_FILE } from '../../src/db/schema-comments.ts';
import { parseSchemaDoc, plainText, SCHEMA_DOC, schemaCommentsFile } from '../../scripts/schema-comments.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// The database explains itself: every table, view, column and enum type of the public schema has a
// description (COMMENT ON), the one docs/schema.md gives it, read here from the catalog as BI tools
// and psql read it.
const source = readSchemaComments(MIGRATIONS_FOLDER);

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  // A partition, as the maintenance job and the writers create them.
  await database.sql`select chaintap_ensure_month_partition('token_price_points', '2026-11-01')`;
});
afterAll(async () => database?.drop());

/** The public schema's relations (partitions too), columns and enum types, with their descriptions. */
async function describedSchema() {
  const relations = await database.sql<{ name: string; partitionOf: string | null; description: string | null }[]>`
    select c.relname as name, (select i.inhparent::regclass::text from pg_inherits i where i.inhrelid = c.oid) as "partitionOf",
           d.description
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_description d on d.objoid = c.oid and d.classoid = 'pg_class'::regclass and d.objsubid = 0
    where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm')
    order by c.relname`;
  const columns = await database.sql<{ relation: string; column: string; description: string | null }[]>`
    select c.relname as relation, a.attname as column, d.description
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    left join pg_description d on d.objoid = c.oid and d.classoid = 'pg_class'::regclass and d.objsubid = a.attnum
    where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm')
    order by c.relname, a.attnum`;
  const types = await database.sql<{ name: string; values: string[]; description: string | null }[]>`
    select t.typname as name, array_agg(e.enumlabel order by e.enumsortorder) as values, d.description
    from pg_type t
    join pg_namespace n on n.oid = t.typnamespace
    join pg_enum e on e.enumtypid = t.oid
    left join pg_description d on d.objoid = t.oid and d.classoid = 'pg_type'::regclass
    where n.nspname = 'public'
    group by t.typname, d.description
    order by t.typname`;
  return { relations, columns, types };
}

describe('descriptions in the database', () => {
  it(`${SCHEMA_COMMENTS_FILE} is what npm run db:comments writes from docs/schema.md`, () => {
    const written = readFileSync(join(MIGRATIONS_FOLDER, SCHEMA_COMMENTS_FILE), 'utf8');
    expect(written, 'run npm run db:comments').toBe(
      schemaCommentsFile(parseSchemaDoc(readFileSync(SCHEMA_DOC, 'utf8'))),
    );
  });

  it('leave no relation, column or enum type of the public schema without a description', async () => {
    const { relations, columns, types } = await describedSchema();
    expect(relations.length).toBeGreaterThan(30);
    expect(relations.filter((row) => !row.description).map((row) => row.name)).toEqual([]);
    expect(columns.filter((row) => !row.description).map((row) => `${row.relation}.${row.column}`)).toEqual([]);
    expect(types.filter((row) => !row.description).map((row) => row.name)).toEqual([]);
  });

  it('are the ones docs/schema.md gives, for everything it names and nothing else', async () => {
    const { relations, columns, types } = await describedSchema();
    const described: typeof source = { relations: {}, types: {} };
    for (const relation of relations.filter((row) => !row.partitionOf)) {
      described.relations[relation.name] = { description: relation.description!, columns: {} };
    }
    for (const { relation, column, description } of columns) {
      const entry = described.relations[relation];
      if (entry) entry.columns[column] = description!;
    }
    for (const { name, values, description } of types) described.types[name] = { values, description: description! };
    expect(described).toEqual(source);
  });

  it("give a partition its parent's column descriptions and a description naming its parent", async () => {
    const { relations, columns } = await describedSchema();
    const partition = relations.find((row) => row.name === 'token_price_points_p2026_11')!;
    expect(partition).toEqual({
      name: 'token_price_points_p2026_11',
      partitionOf: 'token_price_points',
      description: `A monthly partition of token_price_points (its name gives the month, UTC): read token_price_points. ${source.relations.token_price_points!.description}`,
    });
    const of = (relation: string) =>
      columns.filter((row) => row.relation === relation).map(({ column, description }) => [column, description]);
    expect(of('token_price_points_p2026_11')).toEqual(of('token_price_points'));
  });

  it('reach an existing database through chaintap migrate: missing or changed ones are set, and a second run changes nothing', async () => {
    const { sql } = database;
    await sql`comment on table watched_tokens is null`;
    await sql`comment on column latest_portfolio.positions_value is 'an old description'`;
    await sql`comment on type position_amount_kind is null`;
    await sql`comment on column token_price_points_p2026_11.price is null`;
    await runMigrations(database.url);
    const description = async (query: Promise<{ text: string | null }[]>) => (await query)[0]!.text;
    await expect(
      description(sql`select obj_description('watched_tokens'::regclass, 'pg_class') as text`),
    ).resolves.toBe(source.relations.watched_tokens!.description);
    await expect(description(sql`select col_description('latest_portfolio'::regclass, 2) as text`)).resolves.toBe(
      source.relations.latest_portfolio!.columns.positions_value,
    );
    await expect(
      description(sql`select obj_description('position_amount_kind'::regtype, 'pg_type') as text`),
    ).resolves.toBe(source.types.position_amount_kind!.description);
    await expect(
      description(sql`select col_description('token_price_points_p2026_11'::regclass, 5) as text`),
    ).resolves.toBe(source.relations.token_price_points!.columns.price);
    await expect(applySchemaComments(sql, source)).resolves.toBe(0);
  });

  it('keep quotes and backslashes, and leave out what the schema lacks', async () => {
    const { sql } = database;
    await sql`create table public.quoting_check (a integer)`;
    try {
      const text = `it's a \\ back'slash "quoted" \\n`;
      const changed = await applySchemaComments(sql, {
        relations: {
          quoting_check: { description: text, columns: { a: text, missing_column: 'x' } },
          missing_table: { description: 'x', columns: {} },
        },
        types: { missing_type: { values: [], description: 'x' } },
      });
      expect(changed).toBe(2);
      const [row] = await sql<{ table: string; column: string }[]>`
        select obj_description('quoting_check'::regclass, 'pg_class') as table,
               col_description('quoting_check'::regclass, 1) as column`;
      expect(row).toEqual({ table: text, column: text });
    } finally {
      await sql`drop table public.quoting_check`;
    }
  });

  it('show in psql \\d+', () => {
    const result = spawnSync('psql', [database.url, '-c', '\\d+ latest_portfolio'], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(source.relations.latest_portfolio!.columns.nft_unvalued_collections);
  });
});

describe('docs/schema.md as the source', () => {
  const doc = (body: string) => `# schema\n\n## Tables\n\n${body}`;

  it('reads a heading, its first paragraph and its column table, a row naming several columns, and the types', () => {
    const parsed = parseSchemaDoc(
      doc(
        '### things (view) — key `id`\nThe things, one row\neach ([see](#x)).\n\nMore about them.\n\n' +
          '| column | type | meaning |\n|---|---|---|\n| id | integer | its **id** |\n| `a`, `b` | text | a or b: `x \\| y` |\n\n' +
          '```sql\n### not_a_table\n```\n\n## Types\n\n| type | values | meaning |\n|---|---|---|\n| kind | `one`, `two` | which one |\n',
      ),
    );
    expect(parsed).toEqual({
      relations: {
        things: {
          description: 'The things, one row each (see).',
          columns: { id: 'its id', a: 'a or b: x | y', b: 'a or b: x | y' },
        },
      },
      types: { kind: { values: ['one', 'two'], description: 'which one' } },
    });
  });

  it('refuses, naming the line, a relation without a description, a column table or a meaning, and a column given twice', () => {
    const table = '| column | type | meaning |\n|---|---|---|\n';
    expect(() => parseSchemaDoc(doc(`### t\n${table}| a | text | x |\n`))).toThrow(
      /schema.md:5 \(t\): no description paragraph/,
    );
    expect(() => parseSchemaDoc(doc('### t\nThe t.\n'))).toThrow(/\(t\): no "\| column \| type \| meaning \|" table/);
    expect(() => parseSchemaDoc(doc(`### t\nThe t.\n\n${table}| a | text | |\n`))).toThrow(
      /schema.md:10 \(t\): a column without a meaning/,
    );
    expect(() => parseSchemaDoc(doc(`### t\nThe t.\n\n${table}| a | text | x |\n| a, b | text | y |\n`))).toThrow(
      /\(t\): column a described twice/,
    );
  });

  it('gives plain text: links keep their text, code and bold their words', () => {
    expect(plainText('see [What a wallet is worth](#what) and `net_value`, **null**\n  when  unknown')).toBe(
      'see What a wallet is worth and net_value, null when unknown',
    );
  });
});
