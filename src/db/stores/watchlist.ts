import { InvalidInputError } from '../../errors.ts';
import { normalizeAddress, parseChainFilter, parseNftChain } from '../../chain/address.ts';
import { normalizeCoinType } from '../../chain/coin-type.ts';
import type { Database } from '../client.ts';
import { runQuery } from '../query.ts';

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
  const rows = await runQuery(
    database,
    'watchlist.add',
    () => database.sql`
      insert into watched_tokens (coin_type) select unnest(${normal}::text[])
      on conflict do nothing returning coin_type`,
  );
  return { added: rows.length, existing: normal.length - rows.length };
}

export async function removeWatchedTokens(database: Database, coinTypes: string[]): Promise<number> {
  const normal = parseAll(coinTypes, normalizeCoinType);
  if (normal.length === 0) return 0;
  const result = await runQuery(
    database,
    'watchlist.remove',
    () => database.sql`delete from watched_tokens where coin_type = any(${normal}::text[])`,
  );
  return result.count;
}

export interface WatchedToken {
  coinType: string;
  addedAt: Date;
}

/** The token watchlist, in coin type order. */
export async function listWatchedTokenRows(database: Database): Promise<WatchedToken[]> {
  return runQuery(
    database,
    'watchlist.list',
    () => database.sql<WatchedToken[]>`
      select coin_type as "coinType", added_at as "addedAt" from watched_tokens order by coin_type`,
  );
}

/** The watched coin types, in order. */
export async function listWatchedTokens(database: Database): Promise<string[]> {
  return (await listWatchedTokenRows(database)).map((row) => row.coinType);
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
  const chain = opts.chain === undefined || opts.chain.trim() === '' ? null : parseChainFilter(opts.chain);
  const protocols = opts.protocols?.length ? parseAll(opts.protocols, parseProtocol) : null;
  const nftChain = opts.nftChain === undefined ? null : parseNftChain(opts.nftChain);
  if (normal.length === 0) return { added: 0, updated: 0 };
  // An option not given (its flag false) keeps the stored value, or the column's default for a new
  // address (nft_chain 'ALL', include_pnl false: migration 0000).
  const rows = await runQuery(
    database,
    'watchlist.add',
    () => database.sql<{ inserted: boolean }[]>`
      insert into watched_addresses as w (address, chain, protocols, nft_chain, include_pnl)
      select address, ${chain}::text, ${protocols}::text[], coalesce(${nftChain}::text, 'ALL'), coalesce(${opts.includePnl ?? null}::boolean, false)
      from unnest(${normal}::text[]) as address
      on conflict (address) do update set
        chain = case when ${opts.chain !== undefined} then excluded.chain else w.chain end,
        protocols = case when ${opts.protocols !== undefined} then excluded.protocols else w.protocols end,
        nft_chain = case when ${opts.nftChain !== undefined} then excluded.nft_chain else w.nft_chain end,
        include_pnl = case when ${opts.includePnl !== undefined} then excluded.include_pnl else w.include_pnl end
      where (w.chain, w.protocols, w.nft_chain, w.include_pnl) is distinct from (
        case when ${opts.chain !== undefined} then excluded.chain else w.chain end,
        case when ${opts.protocols !== undefined} then excluded.protocols else w.protocols end,
        case when ${opts.nftChain !== undefined} then excluded.nft_chain else w.nft_chain end,
        case when ${opts.includePnl !== undefined} then excluded.include_pnl else w.include_pnl end)
      returning xmax = 0 as inserted`,
  );
  const added = rows.filter((row) => row.inserted).length;
  return { added, updated: rows.length - added };
}

export async function removeWatchedAddresses(database: Database, addresses: string[]): Promise<number> {
  const normal = parseAll(addresses, normalizeAddress);
  if (normal.length === 0) return 0;
  const result = await runQuery(
    database,
    'watchlist.remove',
    () => database.sql`delete from watched_addresses where address = any(${normal}::text[])`,
  );
  return result.count;
}

export async function listWatchedAddresses(database: Database): Promise<WatchedAddress[]> {
  return runQuery(
    database,
    'watchlist.list',
    () => database.sql<WatchedAddress[]>`
      select address, chain, protocols, nft_chain as "nftChain", include_pnl as "includePnl", added_at as "addedAt"
      from watched_addresses order by address`,
  );
}
