import type { Database } from './client.ts';

/**
 * What of a postgres.js query this file uses: `executed` (set once something waits for it) and the
 * `canceller` behind its documented `cancel()`, which drops the promise of the CancelRequest: called
 * here, a Postgres already gone while the command stops is no unhandled rejection.
 */
interface PendingQuery {
  executed: boolean;
  cancel(): unknown;
  canceller?: ((query: PendingQuery) => Promise<void>) | null;
}

const isQuery = (value: unknown): value is PendingQuery =>
  value instanceof Promise && typeof (value as Partial<PendingQuery>).cancel === 'function';

/**
 * `database` whose statements are cancelled when `signal` aborts: Postgres gets a CancelRequest, so
 * the statement stops on the server (a lock wait or a long scan included) and fails at once with
 * 57014, instead of the command waiting for it on SIGTERM. Statements through `database.sql` only
 * (every store's); a fragment, never run on its own, is left alone.
 */
export function cancelOnAbort(database: Database, signal: AbortSignal): Database {
  const queries = new Set<PendingQuery>();
  const sql = new Proxy(database.sql, {
    apply(target, thisArg, args: unknown[]) {
      const query: unknown = Reflect.apply(target, thisArg, args);
      if (isQuery(query)) queries.add(query);
      return query;
    },
  });
  signal.addEventListener(
    'abort',
    () => {
      for (const query of queries) {
        const cancel = query.canceller;
        if (!query.executed || !cancel) continue;
        query.canceller = null;
        cancel(query).catch(() => undefined);
      }
    },
    { once: true },
  );
  return { ...database, sql };
}
