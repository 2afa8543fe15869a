import type { Tx } from '../transaction.ts';

/**
 * Ids of price source names, inserting the new names. A smallint id: new names are inserted only
 * when absent, so no identity value is wasted. Read in a statement of its own, after the insert:
 * a name another job inserted meanwhile (this insert waited for it, then did nothing) is seen then.
 */
export async function priceSourceIds(tx: Tx, names: (string | null)[]): Promise<Map<string, number>> {
  const wanted = [...new Set(names.filter((name): name is string => name !== null))];
  if (wanted.length === 0) return new Map();
  await tx.sql`
    insert into price_sources (name)
    select n.name from unnest(${wanted}::text[]) as n(name)
    where not exists (select 1 from price_sources s where s.name = n.name)
    order by n.name
    on conflict (name) do nothing`;
  const rows = await tx.sql<
    { id: number; name: string }[]
  >`select id, name from price_sources where name = any(${wanted}::text[])`;
  return new Map(rows.map(({ id, name }) => [name, id]));
}
