import type { Database } from '../client.ts';
import { runQuery } from '../query.ts';

/** How many tokens and addresses are watched: what the capacity plan multiplies by the crons. */
export interface WatchlistCounts {
  tokens: number;
  addresses: number;
}

/** One statement, two counts over the primary keys (the watchlist is small next to the data). */
export async function loadWatchlistCounts(database: Database): Promise<WatchlistCounts> {
  const [row] = await runQuery(
    database,
    'watchlist.list',
    () => database.sql<WatchlistCounts[]>`
    select (select count(*) from watched_tokens)::int as tokens,
           (select count(*) from watched_addresses)::int as addresses`,
  );
  return row!;
}
