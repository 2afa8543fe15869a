import type { Database } from '../client.ts';
import { runSql } from '../query.ts';

/** How many tokens and addresses are watched, and for what: what the capacity plan multiplies by the crons. */
export interface WatchlistCounts {
  tokens: number;
  addresses: number;
  /** Addresses refreshed for positions, and for NFT holdings (an address may be both). */
  positionAddresses: number;
  nftAddresses: number;
}

export async function loadWatchlistCounts(database: Database): Promise<WatchlistCounts> {
  const [row] = await runSql(database, 'watchlist.list')<WatchlistCounts[]>`
    select (select count(*) from watched_tokens)::int as tokens, a.*
    from (
      select count(*)::int as addresses,
             (count(*) filter (where 'positions' = any(datasets)))::int as "positionAddresses",
             (count(*) filter (where 'nfts' = any(datasets)))::int as "nftAddresses"
      from watched_addresses
    ) a`;
  return row!;
}
