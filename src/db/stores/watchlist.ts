import { asc, inArray, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { InvalidInputError } from '../../errors.ts';
import { normalizeAddress, parseChainFilter, parseNftChain } from '../../chain/address.ts';
import { normalizeCoinType } from '../../chain/coin-type.ts';
import type { Database } from '../client.ts';
import { runQuery } from '../query.ts';
import { watchedAddresses, watchedTokens } from '../schema/index.ts';
import { changes, excluded, setOf } from '../upsert-sql.ts';

export interface WatchedAddress {
  address: string;
  chain: string | null;
  protocols: string[] | null;
  nftChain: string;
  includePnl: boolean;
  addedAt: Date;
}

export interface WatchedAddressOptions {
  chain?: string;
  protocols?: string[];
  nftChain?: string;
  includePnl?: boolean;
}

const PROTOCOL_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** Every input through `parse`; one InvalidInputError naming all the bad ones, before any write. */
function parseAll<T>(inputs: string[], parse: (input: string) => T): T[] {
  const problems: string[] = [];
  const values: T[] = [];
  for (const input of inputs) {
    try {
      values.push(parse(input));
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new InvalidInputError(`nothing written: ${problems.join('; ')}`);
  return [...new Set(values)];
}

function parseProtocol(input: string): string {
  const protocol = input.trim();
  if (!PROTOCOL_ID.test(protocol))
    throw new InvalidInputError(`invalid protocol id "${input}": letters, digits, _ . - only`);
  return protocol;
}

/** Adds coin types (normal form); those already watched count as existing. */
export async function addWatchedTokens(
  database: Database,
  coinTypes: string[],
): Promise<{ added: number; existing: number }> {
  const normal = parseAll(coinTypes, normalizeCoinType);
  if (normal.length === 0) return { added: 0, existing: 0 };
  const rows = await runQuery(database, 'watchlist.add', () =>
    database.db
      .insert(watchedTokens)
      .values(normal.map((coinType) => ({ coinType })))
      .onConflictDoNothing()
      .returning(),
  );
  return { added: rows.length, existing: normal.length - rows.length };
}

export async function removeWatchedTokens(database: Database, coinTypes: string[]): Promise<number> {
  const normal = parseAll(coinTypes, normalizeCoinType);
  if (normal.length === 0) return 0;
  const rows = await runQuery(database, 'watchlist.remove', () =>
    database.db.delete(watchedTokens).where(inArray(watchedTokens.coinType, normal)).returning(),
  );
  return rows.length;
}

export async function listWatchedTokens(database: Database): Promise<string[]> {
  const rows = await runQuery(database, 'watchlist.list', () =>
    database.db.select({ coinType: watchedTokens.coinType }).from(watchedTokens).orderBy(asc(watchedTokens.coinType)),
  );
  return rows.map((row) => row.coinType);
}

/**
 * Adds addresses, or updates the options of watched ones: the options given replace the stored
 * ones, the others keep their value (defaults for a new address). An empty protocol list means
 * every protocol. `updated` counts watched addresses whose options changed.
 */
export async function addWatchedAddresses(
  database: Database,
  addresses: string[],
  opts: WatchedAddressOptions,
): Promise<{ added: number; updated: number }> {
  const normal = parseAll(addresses, normalizeAddress);
  const options = {
    ...(opts.chain !== undefined ? { chain: opts.chain.trim() === '' ? null : parseChainFilter(opts.chain) } : {}),
    ...(opts.protocols !== undefined
      ? { protocols: opts.protocols.length === 0 ? null : parseAll(opts.protocols, parseProtocol) }
      : {}),
    ...(opts.nftChain !== undefined ? { nftChain: parseNftChain(opts.nftChain) } : {}),
    ...(opts.includePnl !== undefined ? { includePnl: opts.includePnl } : {}),
  };
  if (normal.length === 0) return { added: 0, updated: 0 };
  const w = watchedAddresses;
  const values = normal.map((address) => ({ address, ...options }));
  const inserted = sql<boolean>`xmax = 0`;
  const keys = Object.keys(options) as (keyof typeof options)[];
  const assignments = keys.map((key): [AnyPgColumn, SQL] => [w[key], excluded(w[key])]);
  const rows = await runQuery(database, 'watchlist.add', () =>
    keys.length === 0
      ? database.db.insert(w).values(values).onConflictDoNothing().returning({ inserted })
      : database.db
          .insert(w)
          .values(values)
          .onConflictDoUpdate({ target: w.address, set: setOf(w, assignments), setWhere: changes(assignments) })
          .returning({ inserted }),
  );
  const added = rows.filter((row) => row.inserted).length;
  return { added, updated: rows.length - added };
}

export async function removeWatchedAddresses(database: Database, addresses: string[]): Promise<number> {
  const normal = parseAll(addresses, normalizeAddress);
  if (normal.length === 0) return 0;
  const rows = await runQuery(database, 'watchlist.remove', () =>
    database.db.delete(watchedAddresses).where(inArray(watchedAddresses.address, normal)).returning(),
  );
  return rows.length;
}

export async function listWatchedAddresses(database: Database): Promise<WatchedAddress[]> {
  return runQuery(database, 'watchlist.list', () =>
    database.db.select().from(watchedAddresses).orderBy(asc(watchedAddresses.address)),
  );
}
