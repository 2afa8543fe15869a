import { poolCache } from '../pool-cache.ts';
import type { Tx } from '../transaction.ts';

/** Source name -> id, per pool; ids enter the cache only once their row is committed. */
const sourceIds = poolCache(() => new Map<string, number>());

/**
 * Ids of price source names, inserting the new names. Sources are few, so this is usually a cache
 * hit. A smallint id: new names are inserted only when absent, so no identity value is wasted.
 */
export async function priceSourceIds(tx: Tx, names: (string | null)[]): Promise<Map<string, number>> {
  const cache = sourceIds(tx.database.sql);
  const wanted = [...new Set(names.filter((name): name is string => name !== null))];
  const unknown = wanted.filter((name) => !cache.has(name));
  const ids = new Map(wanted.filter((name) => cache.has(name)).map((name) => [name, cache.get(name)!]));
  if (unknown.length === 0) return ids;
  await tx.sql`
    insert into price_sources (name)
    select n.name from unnest(${unknown}::text[]) as n(name)
    where not exists (select 1 from price_sources s where s.name = n.name)
    order by n.name
    on conflict (name) do nothing`;
  const rows = await tx.sql<
    { id: number; name: string }[]
  >`select id, name from price_sources where name = any(${unknown}::text[])`;
  for (const { id, name } of rows) {
    ids.set(name, id);
    tx.afterCommit(() => cache.set(name, id));
  }
  return ids;
}
