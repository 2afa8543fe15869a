import { createHash } from 'node:crypto';
import type { Database } from '../../src/db/client.ts';
import { dataTables as allDataTables, OPERATIONAL_TABLES } from './table-digest.ts';

/**
 * Natural-key comparison of two databases, for the fault scenarios: every data table read as
 * (natural key -> values), so that two runs of the same tick compare equal row by row even though
 * surrogate ids (assigned in commit order) and wall-clock receipt columns differ.
 *
 * Replaced by the natural key they stand for:
 *   tokens.id (token_catalog.id where tokens is a view over it), price_sources.id,
 *   token_price_points.token_id/source_id (coin type and chain, source name),
 *   positions.position_key and position_snapshot_points.position_key (owner, position id),
 *   position_tokens.id and position_snapshot_points.amount_tokens (token and symbol).
 * Compared as they read, not as stored: a position snapshot's `extra` and its entries' token objects
 * (stored as differences from positions.snapshot_extra and position_tokens.info, which hold the
 * first value written: with several jobs at once, which one comes first varies).
 * Left out because they come from the wall clock, not from the tick or the upstream's answer:
 *   watched_tokens.added_at, watched_addresses.added_at (when the watchlist row was added),
 *   token_price_points.fetch_delay_s (receipt time minus price time),
 *   dataset_watermarks.last_success_at (when the job committed).
 * Operational tables (ingestion_runs, raw_responses and their dictionaries, quarantined_payloads) are receipts of every
 * attempt and are checked by the scenarios themselves.
 */
interface TableSpec {
  /** FROM clause; the table itself is aliased `t`. */
  from: string;
  key: string[];
  /** Columns of `t` that are neither values nor part of the key as written. */
  exclude: string[];
  /** Extra value expressions (from joined tables). */
  extraValues?: string[];
}

const SPECS: Record<string, TableSpec> = {
  watched_tokens: { from: 'watched_tokens t', key: ['t.coin_type'], exclude: ['added_at'] },
  watched_addresses: { from: 'watched_addresses t', key: ['t.address'], exclude: ['added_at'] },
  tokens: { from: 'tokens t', key: ['t.coin_type', 't.chain'], exclude: ['id'] },
  token_catalog: { from: 'token_catalog t', key: ['t.coin_type', 't.chain'], exclude: ['id'] },
  price_sources: { from: 'price_sources t', key: ['t.name'], exclude: ['id'] },
  token_price_points: {
    // `tokens` (a table, or a view over token_catalog) maps the surrogate id to the token on its chain.
    from: 'token_price_points t join tokens k on k.id = t.token_id left join price_sources ps on ps.id = t.source_id',
    key: ['k.coin_type', 'k.chain', 't.price_time'],
    exclude: ['token_id', 'source_id', 'fetch_delay_s'],
    extraValues: ['ps.name'],
  },
  protocols: { from: 'protocols t', key: ['t.protocol_id'], exclude: [] },
  positions: { from: 'positions t', key: ['t.owner', 't.position_id'], exclude: ['position_key', 'snapshot_extra'] },
  position_tokens: {
    from: 'position_tokens t',
    key: ['t.token', 't.symbol', 't.info is not null'],
    exclude: ['id', 'digest', 'info'],
  },
  position_snapshot_points: {
    from: 'position_snapshot_points t join positions p on p.position_key = t.position_key',
    key: ['p.owner', 'p.position_id', 't.snapshot_at'],
    exclude: ['position_key', 'extra', 'amount_tokens', 'amount_token_info'],
    extraValues: [
      'chaintap_jsonb_patch(p.snapshot_extra, t.extra)',
      `array(select row(k.token, k.symbol, chaintap_jsonb_patch(k.info, e.info))::text
             from unnest(t.amount_tokens, t.amount_token_info) with ordinality as e(id, info, n)
             left join position_tokens k on k.id = e.id order by e.n)`,
    ],
  },
  position_refreshes: { from: 'position_refreshes t', key: ['t.owner', 't.snapshot_at'], exclude: [] },
  nft_collections: { from: 'nft_collections t', key: ['t.collection_id'], exclude: [] },
  nft_holding_snapshots: {
    from: 'nft_holding_snapshots t',
    key: ['t.owner', 't.collection_id', 't.snapshot_at'],
    exclude: [],
  },
  nft_tokens: { from: 'nft_tokens t', key: ['t.owner', 't.collection_id', 't.token_id'], exclude: [] },
  nft_refreshes: { from: 'nft_refreshes t', key: ['t.owner', 't.snapshot_at'], exclude: [] },
  dataset_watermarks: { from: 'dataset_watermarks t', key: ['t.dataset', 't.target'], exclude: ['last_success_at'] },
};

export interface TableContent {
  rows: number;
  /** Natural key -> the row's values, as text. */
  values: Map<string, string>;
  /** Rows sharing a natural key with an earlier row. */
  duplicates: number;
  md5: string;
}

export type DataSnapshot = Record<string, TableContent>;

async function columnsOf(database: Database, table: string): Promise<string[]> {
  const rows = await database.sql<{ name: string }[]>`
    select column_name as name from information_schema.columns
    where table_schema = 'public' and table_name = ${table} order by ordinal_position`;
  return rows.map((row) => row.name);
}

/** A table without a spec here (added later) is compared on its primary key and every column. */
async function fallbackSpec(database: Database, table: string): Promise<TableSpec> {
  const rows = await database.sql<{ name: string }[]>`
    select a.attname as name
    from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = ${table}::regclass and i.indisprimary
    order by array_position(i.indkey, a.attnum)`;
  const key = rows.length
    ? rows.map((row) => `t."${row.name}"`)
    : (await columnsOf(database, table)).map((c) => `t."${c}"`);
  return { from: `"${table}" t`, key, exclude: [] };
}

const text = (expression: string) => `coalesce((${expression})::text, '∅')`;

/** Every data table as natural key -> values. */
export async function readData(database: Database): Promise<DataSnapshot> {
  const snapshot: DataSnapshot = {};
  const tables = (await allDataTables(database)).filter((name) => !OPERATIONAL_TABLES.includes(name));
  for (const table of tables) {
    const spec = SPECS[table] ?? (await fallbackSpec(database, table));
    const keyColumns = new Set(spec.key.filter((k) => k.startsWith('t.')).map((k) => k.slice(2).replaceAll('"', '')));
    const valueColumns = (await columnsOf(database, table))
      .filter((column) => !spec.exclude.includes(column) && !keyColumns.has(column))
      .map((column) => `t."${column}"`);
    const values = [...valueColumns, ...(spec.extraValues ?? [])];
    const rows = await database.sql.unsafe<{ k: string; v: string }[]>(
      `select ${spec.key.map(text).join(` || '|' || `)} as k, ${values.length ? values.map(text).join(` || '|' || `) : `''`} as v from ${spec.from}`,
    );
    const map = new Map<string, string>();
    let duplicates = 0;
    for (const row of rows) {
      if (map.has(row.k)) duplicates++;
      else map.set(row.k, row.v);
    }
    const lines = rows.map((row) => `${row.k}\t${row.v}`).sort();
    snapshot[table] = {
      rows: rows.length,
      values: map,
      duplicates,
      md5: createHash('md5').update(lines.join('\n')).digest('hex'),
    };
  }
  return snapshot;
}

export interface DataComparison {
  rowsExpected: number;
  rowsFound: number;
  duplicates: number;
  /** Keys of the reference missing from the run. */
  lost: number;
  /** Keys the reference does not have. */
  extra: number;
  /** Keys in both whose values differ. */
  changed: number;
  /** Per table, the first few differences (for a failure message). */
  differences: Record<string, string[]>;
  /** Tables whose checksum differs (empty when the data are identical). */
  tablesDiffering: string[];
}

/**
 * Compares a run with the fault-free reference. Every row the run has must equal the reference's row
 * of the same key. `scope` says which of the reference's keys the run must have (e.g. those of the
 * targets that succeeded): a missing key in scope is lost; by default every key is in scope.
 */
export function compareData(
  found: DataSnapshot,
  expected: DataSnapshot,
  scope?: (table: string, key: string) => boolean,
): DataComparison {
  const result: DataComparison = {
    rowsExpected: 0,
    rowsFound: 0,
    duplicates: 0,
    lost: 0,
    extra: 0,
    changed: 0,
    differences: {},
    tablesDiffering: [],
  };
  const note = (table: string, message: string) => {
    const list = (result.differences[table] ??= []);
    if (list.length < 5) list.push(message);
  };
  for (const table of new Set([...Object.keys(expected), ...Object.keys(found)])) {
    const want = expected[table];
    const got = found[table];
    if (!want || !got) {
      note(table, `table only in ${want ? 'the reference' : 'the run'}`);
      result.tablesDiffering.push(table);
      continue;
    }
    const inScope = (key: string) => !scope || scope(table, key);
    result.rowsFound += got.rows;
    result.duplicates += got.duplicates;
    for (const [key, value] of want.values) {
      const other = got.values.get(key);
      if (other === undefined) {
        if (!inScope(key)) continue;
        result.rowsExpected++;
        result.lost++;
        note(table, `lost ${key}`);
        continue;
      }
      result.rowsExpected++;
      if (other !== value) {
        result.changed++;
        note(table, `changed ${key}: ${value} -> ${other}`);
      }
    }
    for (const key of got.values.keys()) {
      if (!want.values.has(key)) {
        result.extra++;
        note(table, `extra ${key}`);
      }
    }
    if (got.md5 !== want.md5) result.tablesDiffering.push(table);
  }
  return result;
}

/** Row counts per table, for messages and the reliability table. */
export function rowCounts(snapshot: DataSnapshot): Record<string, number> {
  return Object.fromEntries(Object.entries(snapshot).map(([table, content]) => [table, content.rows]));
}
