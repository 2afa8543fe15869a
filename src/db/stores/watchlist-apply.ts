import type { Database } from '../client.ts';
import type { watchedAddresses } from '../schema/index.ts';
import { withTransaction } from '../transaction.ts';

/** An address as declared: every option given (a file's defaults filled in). */
export type DeclaredAddress = Omit<typeof watchedAddresses.$inferSelect, 'addedAt'>;

/** The whole watchlist as a file declares it: coin types and addresses in their normal forms, each once. */
export interface DeclaredWatchlist {
  tokens: string[];
  addresses: DeclaredAddress[];
}

export interface WatchlistChanges {
  tokens: { added: string[]; removed: string[]; unchanged: number };
  addresses: {
    added: DeclaredAddress[];
    updated: { before: DeclaredAddress; after: DeclaredAddress }[];
    removed: string[];
    unchanged: number;
  };
}

function sameOptions(a: DeclaredAddress, b: DeclaredAddress): boolean {
  return (
    a.datasets.join() === b.datasets.join() &&
    a.chain === b.chain &&
    (a.protocols ?? []).join() === (b.protocols ?? []).join() &&
    a.nftChain === b.nftChain &&
    a.includePnl === b.includePnl &&
    a.maxAgeSeconds === b.maxAgeSeconds &&
    a.everySeconds === b.everySeconds
  );
}

/** What makes `current` equal to `declared`. Pure; lists in the order of their inputs. */
function diffWatchlist(current: DeclaredWatchlist, declared: DeclaredWatchlist): WatchlistChanges {
  const currentTokens = new Set(current.tokens);
  const declaredTokens = new Set(declared.tokens);
  const currentAddresses = new Map(current.addresses.map((watched) => [watched.address, watched]));
  const declaredAddresses = new Set(declared.addresses.map((watched) => watched.address));
  const removedTokens = current.tokens.filter((token) => !declaredTokens.has(token));
  const removed = current.addresses.map(({ address }) => address).filter((address) => !declaredAddresses.has(address));
  const updated = declared.addresses.flatMap((after) => {
    const before = currentAddresses.get(after.address);
    return before && !sameOptions(before, after) ? [{ before, after }] : [];
  });
  return {
    tokens: {
      added: declared.tokens.filter((token) => !currentTokens.has(token)),
      removed: removedTokens,
      unchanged: current.tokens.length - removedTokens.length,
    },
    addresses: {
      added: declared.addresses.filter((watched) => !currentAddresses.has(watched.address)),
      updated,
      removed,
      unchanged: current.addresses.length - removed.length - updated.length,
    },
  };
}

/**
 * `chaintap watchlist apply`: makes the watchlist equal to `declared` in one transaction, and returns
 * what changed (with `dryRun`, what would: the same diff, so a dry run says exactly what a run does).
 */
export function applyWatchlist(
  database: Database,
  declared: DeclaredWatchlist,
  options: { dryRun: boolean },
): Promise<WatchlistChanges> {
  return withTransaction(database, 'watchlist.apply', async ({ sql }) => {
    // Writers wait (readers do not), so that what is printed is what is written.
    await sql`lock table watched_tokens, watched_addresses in share row exclusive mode`;
    const tokens = await sql<
      { coinType: string }[]
    >`select coin_type as "coinType" from watched_tokens order by coin_type`;
    const addresses = await sql<DeclaredAddress[]>`
      select address, datasets, chain, protocols, nft_chain as "nftChain", include_pnl as "includePnl",
             max_age_s as "maxAgeSeconds", every_s as "everySeconds"
      from watched_addresses order by address`;
    const changes = diffWatchlist({ tokens: tokens.map((row) => row.coinType), addresses }, declared);
    if (options.dryRun) return changes;
    const { tokens: t, addresses: a } = changes;
    await sql`delete from watched_tokens where coin_type = any(${t.removed}::text[])`;
    await sql`insert into watched_tokens (coin_type) select unnest(${t.added}::text[])`;
    await sql`delete from watched_addresses where address = any(${a.removed}::text[])`;
    const written = [...a.added, ...a.updated.map(({ after }) => after)];
    // Arrays of arrays go as their text (an array literal each: the values hold no quote, comma or
    // brace), booleans as text too (postgres.js sends no boolean arrays).
    const literal = (list: string[] | null) => (list === null ? null : `{${list.join(',')}}`);
    await sql`
      insert into watched_addresses as w (address, datasets, chain, protocols, nft_chain, include_pnl, max_age_s, every_s)
      select address, datasets::text[], chain, protocols::text[], nft_chain, include_pnl::boolean, max_age_s, every_s
      from unnest(${written.map((w) => w.address)}::text[], ${written.map((w) => literal(w.datasets))}::text[],
                  ${written.map((w) => w.chain)}::text[], ${written.map((w) => literal(w.protocols))}::text[],
                  ${written.map((w) => w.nftChain)}::text[], ${written.map((w) => String(w.includePnl))}::text[],
                  ${written.map((w) => w.maxAgeSeconds)}::int[], ${written.map((w) => w.everySeconds)}::int[])
        as t(address, datasets, chain, protocols, nft_chain, include_pnl, max_age_s, every_s)
      on conflict (address) do update set
        datasets = excluded.datasets, chain = excluded.chain, protocols = excluded.protocols,
        nft_chain = excluded.nft_chain, include_pnl = excluded.include_pnl, max_age_s = excluded.max_age_s,
        every_s = excluded.every_s`;
    return changes;
  });
}
