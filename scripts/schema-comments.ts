// `npm run db:comments`: reads the descriptions of every table, view, column and enum type from
// docs/schema.md and writes them to migrations/schema-comments.json, which `chaintap migrate`
// applies (COMMENT ON). How docs/schema.md states them: its section "Descriptions in the database".
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SCHEMA_COMMENTS_FILE, type SchemaComments } from '../src/db/schema-comments.ts';
import { MIGRATIONS_FOLDER } from '../src/db/migrate.ts';

export const SCHEMA_DOC = join(import.meta.dirname, '../docs/schema.md');

/** `### name`, `### name (view)`, either followed by ` — ...` (its key): a table or a view. */
const RELATION_HEADING = /^### ([a-z][a-z0-9_]*)(?: \(view\))?(?: — .*)?$/;
const NAME = /^[a-z][a-z0-9_]*$/;

/** Markdown of one paragraph or cell as plain text: links keep their text, code and bold their words. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replaceAll('`', '')
    .replaceAll('\\|', '|')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The cells of a table row: split on the pipes that are not escaped. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** The rows of the first table in `lines` whose header is `header`, with their line numbers. */
function tableRows(lines: { text: string; number: number }[], header: string) {
  const start = lines.findIndex((line) => line.text.replace(/\s+/g, ' ').startsWith(header));
  if (start < 0) return undefined;
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.text.startsWith('|')) break;
    rows.push({ cells: cells(line.text), number: line.number });
  }
  return rows;
}

/** The names of a cell that lists one or more (`a, b, c`). */
function names(cell: string, where: string): string[] {
  const listed = plainText(cell)
    .split(',')
    .map((name) => name.trim());
  for (const name of listed) if (!NAME.test(name)) throw new Error(`${where}: "${name}" is not a column name`);
  return listed;
}

/**
 * Every relation of docs/schema.md (a `### name` heading: its first paragraph describes it, its
 * `| column | type | meaning |` table its columns) and every enum type (the table under `## Types`).
 * Throws, naming the line, on a relation without a description or a column table, a column without
 * a meaning, or a name given twice.
 */
export function parseSchemaDoc(markdown: string, file = 'docs/schema.md'): SchemaComments {
  const lines: { text: string; number: number }[] = [];
  let fenced = false;
  for (const [index, text] of markdown.split('\n').entries()) {
    if (text.startsWith('```')) fenced = !fenced;
    // Headings and tables inside code blocks are not the document's.
    lines.push({ text: fenced || text.startsWith('```') ? '' : text, number: index + 1 });
  }
  const sections: { heading: string; number: number; body: typeof lines }[] = [];
  for (const line of lines) {
    if (/^#{1,3} /.test(line.text)) sections.push({ heading: line.text, number: line.number, body: [] });
    else sections.at(-1)?.body.push(line);
  }

  const source: SchemaComments = { relations: {}, types: {} };
  for (const { heading, number, body } of sections) {
    const relation = RELATION_HEADING.exec(heading)?.[1];
    if (relation) {
      const where = `${file}:${number} (${relation})`;
      if (source.relations[relation]) throw new Error(`${where}: described twice`);
      const first = body.findIndex((line) => line.text.trim() !== '');
      const end = body.findIndex((line, index) => index > first && line.text.trim() === '');
      const paragraph = body.slice(first, end < 0 ? undefined : end).map((line) => line.text);
      if (first < 0 || paragraph[0]!.startsWith('|')) throw new Error(`${where}: no description paragraph`);
      const rows = tableRows(body, '| column | type | meaning |');
      if (!rows) throw new Error(`${where}: no "| column | type | meaning |" table`);
      const columns: Record<string, string> = {};
      for (const row of rows) {
        const rowWhere = `${file}:${row.number} (${relation})`;
        const meaning = plainText(row.cells[2] ?? '');
        if (!meaning) throw new Error(`${rowWhere}: a column without a meaning`);
        for (const column of names(row.cells[0]!, rowWhere)) {
          if (columns[column]) throw new Error(`${rowWhere}: column ${column} described twice`);
          columns[column] = meaning;
        }
      }
      source.relations[relation] = { description: plainText(paragraph.join(' ')), columns };
    } else if (heading === '## Types') {
      for (const row of tableRows(body, '| type | values | meaning |') ?? []) {
        const where = `${file}:${row.number}`;
        const [type] = names(row.cells[0]!, where);
        const description = plainText(row.cells[2] ?? '');
        if (!description) throw new Error(`${where}: type ${type} without a meaning`);
        source.types[type!] = { values: names(row.cells[1]!, where), description };
      }
    }
  }
  return source;
}

/** The file's text: what `npm run db:comments` writes, and what the test expects to find. */
export function schemaCommentsFile(source: SchemaComments): string {
  return `${JSON.stringify(source, null, 2)}\n`;
}

if (import.meta.main) {
  const source = parseSchemaDoc(readFileSync(SCHEMA_DOC, 'utf8'));
  const path = join(MIGRATIONS_FOLDER, SCHEMA_COMMENTS_FILE);
  writeFileSync(path, schemaCommentsFile(source));
  const columns = Object.values(source.relations).reduce((sum, { columns }) => sum + Object.keys(columns).length, 0);
  console.log(
    `${relative(process.cwd(), path)}: ${Object.keys(source.relations).length} tables and views, ${columns} columns, ${Object.keys(source.types).length} types`,
  );
}
