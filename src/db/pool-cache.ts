import type { Sql } from './client.ts';

/**
 * One value per connection pool, made by `create` on first use: what a process knows about
 * committed rows is true for every connection of its pool, and two pools (tests, two databases)
 * never share it. Weakly held: a closed pool's value goes with it.
 */
export function poolCache<V>(create: () => V): (sql: Sql) => V {
  const values = new WeakMap<Sql, V>();
  return (sql) => {
    let value = values.get(sql);
    if (value === undefined) values.set(sql, (value = create()));
    return value;
  };
}
