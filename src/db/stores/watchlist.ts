import { checkAddressChains, parseChainFilter, parseNftChain, readAddress, parseAddress } from '../../chain/address.ts';
import type { AddressFormat, NftChain } from '../../chain/address-formats.ts';
import { normalizeCoinType } from '../../chain/coin-type.ts';
import { ADDRESS_DATASETS, type AddressDataset } from '../../datasets.ts';
import { parseDuration } from '../../config/duration.ts';
import { InvalidInputError } from '../../errors.ts';
import type { Database, TransactionSql } from '../client.ts';
import { runSql } from '../query.ts';
import type { watchedAddresses, watchedTokens } from '../schema/index.ts';
import { withTransaction } from '../transaction.ts';
import { overwrite } from './upsert.ts';

/**
 * The watchlist. Input of any size is streamed, each value checked and normalized, into a temporary
 * table one array parameter at a time; one statement then adds or removes the whole set in the same
 * transaction: when a value is invalid, nothing is written and the error names the first few.
 */

export type WatchedAddress = typeof watchedAddresses.$inferSelect & {
  /** The address's format (src/chain/address.ts); null for a value stored before it was checked. */
  format: AddressFormat | null;
};

export interface WatchedAddressOptions {
  /** positions, nfts or both. */
  datasets?: readonly string[];
  /** Positions chain filter; '' or null: every chain. */
  chain?: string | null;
  /** Positions protocol filter; []: every protocol. */
  protocols?: string[];
  nftChain?: string;
  includePnl?: boolean;
  /** Longest time between two refreshes, such as `24h` (config/duration.ts); null: REFRESH_MAX_AGE. */
  maxAge?: string | null;
  /** A fixed cadence, such as `15m`; null: by change rate. */
  every?: string | null;
}

/** A value read from the command line or a file, with where it came from (for errors: "list.txt:12"). */
export type InputValue = { value: string; where?: string };

/** Values given as a list, or a source that reads them (read once per attempt of the transaction). */
export type WatchlistInput = readonly string[] | (() => AsyncIterable<InputValue>);

/** Values inserted into the temporary table at a time (one text[] parameter). */
const INPUT_BATCH = 10_000;
/** At most this many bad values are named in an error, so that it stays one screen. */
const PROBLEMS_SHOWN = 5;
const PROTOCOL_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** Parses `input` into the temporary table watchlist_input; one InvalidInputError names the first bad values. */
async function stageInput(sql: TransactionSql, input: WatchlistInput, parse: (value: string) => string): Promise<void> {
  await sql`create temporary table watchlist_input (value text not null) on commit drop`;
  const problems: string[] = [];
  let bad = 0;
  let batch: string[] = [];
  const flush = async () => {
    if (batch.length > 0 && bad === 0) await sql`insert into watchlist_input (value) select unnest(${batch}::text[])`;
    batch = [];
  };
  const values = typeof input === 'function' ? input() : input.map((value): InputValue => ({ value }));
  for await (const { value, where } of values) {
    try {
      batch.push(parse(value));
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      bad += 1;
      if (problems.length < PROBLEMS_SHOWN) problems.push(where ? `${where}: ${error.message}` : error.message);
    }
    if (batch.length >= INPUT_BATCH) await flush();
  }
  if (bad > 0) {
    const more = bad > problems.length ? `; and ${bad - problems.length} more` : '';
    throw new InvalidInputError(`nothing written: ${problems.join('; ')}${more}`);
  }
  await flush();
}

/** Adds coin types (normal form); those already watched count as existing. */
export function addWatchedTokens(
  database: Database,
  input: WatchlistInput,
): Promise<{ added: number; existing: number }> {
  return withTransaction(database, 'watchlist.add', async ({ sql }) => {
    await stageInput(sql, input, normalizeCoinType);
    const [row] = await sql<{ added: number; given: number }[]>`
      with given as (select distinct value from watchlist_input),
      added as (insert into watched_tokens (coin_type) select value from given on conflict do nothing returning 1)
      select (select count(*) from added)::int as added, (select count(*) from given)::int as given`;
    return { added: row!.added, existing: row!.given - row!.added };
  });
}

export function removeWatchedTokens(database: Database, input: WatchlistInput): Promise<number> {
  return withTransaction(database, 'watchlist.remove', async ({ sql }) => {
    await stageInput(sql, input, normalizeCoinType);
    const result = await sql`delete from watched_tokens where coin_type in (select value from watchlist_input)`;
    return result.count;
  });
}

type WatchedToken = typeof watchedTokens.$inferSelect;

export async function listWatchedTokenRows(database: Database): Promise<WatchedToken[]> {
  return runSql(database, 'watchlist.list')<WatchedToken[]>`
      select coin_type as "coinType", added_at as "addedAt" from watched_tokens order by coin_type`;
}

export async function listWatchedTokens(database: Database): Promise<string[]> {
  return (await listWatchedTokenRows(database)).map((row) => row.coinType);
}

/** The options as stored: only those given (a missing one keeps the stored value, or the default). */
interface AddressColumns {
  datasets?: AddressDataset[];
  chain?: string | null;
  protocols?: string[] | null;
  nft_chain?: NftChain;
  include_pnl?: boolean;
  max_age_s?: number | null;
  every_s?: number | null;
}

const COLUMN_TYPES: Record<keyof AddressColumns, string> = {
  datasets: 'text[]',
  chain: 'text',
  protocols: 'text[]',
  nft_chain: 'text',
  include_pnl: 'boolean',
  max_age_s: 'integer',
  every_s: 'integer',
};

/** A refresh interval option in whole seconds; null or '' for the default. */
function parseRefreshInterval(name: 'max-age' | 'every', value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  const ms = parseDuration(value);
  if (ms === undefined || ms < 60_000 || ms > 366 * 86_400_000)
    throw new InvalidInputError(
      `invalid ${name} "${value}": expected a duration from 1m to 366d, such as 15m, 24h or 7d`,
    );
  return Math.round(ms / 1000);
}

/** positions, nfts or both: "nfts,positions" gives ['positions', 'nfts']. */
function parseAddressDatasets(values: readonly string[]): AddressDataset[] {
  const given = values.map((value) => value.trim().toLowerCase()).filter(Boolean);
  const unknown = given.filter((value) => !(ADDRESS_DATASETS as readonly string[]).includes(value));
  if (unknown.length > 0 || given.length === 0) {
    throw new InvalidInputError(
      `invalid datasets "${values.join(',')}": expected ${ADDRESS_DATASETS.join(', ')} or both, comma-separated`,
    );
  }
  return ADDRESS_DATASETS.filter((dataset) => given.includes(dataset));
}

function parseProtocol(input: string): string {
  const protocol = input.trim();
  if (!PROTOCOL_ID.test(protocol))
    throw new InvalidInputError(`invalid protocol id "${input}": letters, digits, _ . - only`);
  return protocol;
}

/** The options given, checked; throws InvalidInputError before anything is read or written. */
export function parseAddressOptions(opts: WatchedAddressOptions): AddressColumns {
  const columns: AddressColumns = {};
  if (opts.datasets !== undefined) columns.datasets = parseAddressDatasets(opts.datasets);
  if (opts.chain !== undefined) {
    columns.chain = opts.chain === null || opts.chain.trim() === '' ? null : parseChainFilter(opts.chain);
  }
  if (opts.protocols !== undefined) {
    columns.protocols = opts.protocols.length === 0 ? null : [...new Set(opts.protocols.map(parseProtocol))];
  }
  if (opts.nftChain !== undefined) columns.nft_chain = parseNftChain(opts.nftChain);
  if (opts.includePnl !== undefined) columns.include_pnl = opts.includePnl;
  if (opts.maxAge !== undefined) columns.max_age_s = parseRefreshInterval('max-age', opts.maxAge);
  if (opts.every !== undefined) columns.every_s = parseRefreshInterval('every', opts.every);
  return columns;
}

/** Adds addresses, or replaces the options given of watched ones; refused when a chain takes another format. */
export async function addWatchedAddresses(
  database: Database,
  input: WatchlistInput,
  opts: WatchedAddressOptions,
): Promise<{ added: number; updated: number }> {
  const columns = parseAddressOptions(opts);
  const chains = { positionsChain: columns.chain, nftChain: columns.nft_chain };
  const parse = (value: string) => {
    const parsed = parseAddress(value);
    checkAddressChains(parsed, chains);
    return parsed.address;
  };
  // The option columns' names are this module's constants (COLUMN_TYPES), never input.
  const names = Object.keys(columns) as (keyof AddressColumns)[];
  const onConflict = names.length === 0 ? 'do nothing' : overwrite(names.join(', '));
  return withTransaction(database, 'watchlist.add', async ({ sql }) => {
    await stageInput(sql, input, parse);
    const values = names.reduce(
      (fragment, name) => sql`${fragment}, ${columns[name] ?? null}::${sql.unsafe(COLUMN_TYPES[name])}`,
      sql``,
    );
    const [row] = await sql<{ added: number; updated: number }[]>`
      with given as (select distinct value from watchlist_input),
      written as (
        insert into watched_addresses as t (address${sql.unsafe(names.map((name) => `, ${name}`).join(''))})
        select value${values} from given
        on conflict (address) ${sql.unsafe(onConflict)}
        returning xmax = 0 as inserted)
      select count(*) filter (where inserted)::int as added, count(*) filter (where not inserted)::int as updated
      from written`;
    return row!;
  });
}

/** Stops watching addresses; a value of no known format is matched as given (an entry stored before checks). */
export function removeWatchedAddresses(database: Database, input: WatchlistInput): Promise<number> {
  return withTransaction(database, 'watchlist.remove', async ({ sql }) => {
    await stageInput(sql, input, (value) => readAddress(value)?.address ?? value.trim());
    const result = await sql`delete from watched_addresses where address in (select value from watchlist_input)`;
    return result.count;
  });
}

/** The watched addresses in address order; the first `limit` only when given. */
export async function listWatchedAddresses(database: Database, limit?: number): Promise<WatchedAddress[]> {
  const rows = await runSql(database, 'watchlist.list')<Omit<WatchedAddress, 'format'>[]>`
      select address, datasets, chain, protocols, nft_chain as "nftChain", include_pnl as "includePnl",
             added_at as "addedAt", max_age_s as "maxAgeSeconds", every_s as "everySeconds"
      from watched_addresses order by address ${limit === undefined ? database.sql`` : database.sql`limit ${limit}`}`;
  return rows.map((row) => ({ ...row, format: readAddress(row.address)?.format ?? null }));
}
