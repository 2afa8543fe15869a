import type { Sql } from '../../src/db/client.ts';
import { listWatchedTokens } from '../../src/db/index.ts';
import type { Database } from '../../src/db/client.ts';
import { priceJobs } from '../../src/scheduler/job-builders.ts';

/**
 * "No partial job is ever visible": a job's rows, its run record and its raw body commit together
 * or not at all. Per job (dataset, target) of one tick this reads, in one repeatable-read
 * snapshot, every row the job writes that can be attributed to it, its ingestion_runs status and
 * whether a 2xx raw body is stored. A job is whole when its run succeeded, a 2xx body is there and
 * its rows are exactly those of the fault-free run; or when its run did not succeed and it has no
 * rows at all.
 *
 * Attributed rows: positions (by owner, current state), position_refreshes, position_snapshots,
 * position_amounts and position_farming at the tick; nft_refreshes and nft_holding_snapshots at the
 * tick and nft_tokens (by owner); token_price_points of the batch's coin types. Shared dimension
 * rows (tokens, protocols, collections) belong to no single job and are left to the final digest.
 */
export interface JobView {
  status: string | null;
  rawBodies: number;
  rows: Record<string, number>;
}

export type TickView = Map<string, JobView>;

export interface PriceBatch {
  target: string;
  coinTypes: string[];
}

/** The price batches (job targets and their coin types) a tick of the current watchlist produces. */
export async function priceBatchesOf(database: Database, tick: Date): Promise<PriceBatch[]> {
  return priceJobs(await listWatchedTokens(database), tick).map((job) => ({
    target: job.data.target,
    coinTypes: job.data.coinTypes,
  }));
}

const jobKey = (dataset: string, target: string) => `${dataset}|${target}`;

/** Reads every job of the tick as one consistent snapshot. */
export async function readTick(sql: Sql, tick: Date, batches: PriceBatch[]): Promise<TickView> {
  return (await sql.begin('isolation level repeatable read read only', async (tx) => {
    const view: TickView = new Map();
    const job = (dataset: string, target: string) => {
      const key = jobKey(dataset, target);
      let entry = view.get(key);
      if (!entry) view.set(key, (entry = { status: null, rawBodies: 0, rows: {} }));
      return entry;
    };
    const add = (dataset: string, table: string, rows: { target: string; n: number }[]) => {
      for (const row of rows) job(dataset, row.target).rows[table] = row.n;
    };
    for (const run of await tx<{ dataset: string; target: string; status: string }[]>`
      select dataset, target, status from ingestion_runs where tick = ${tick}`) {
      job(run.dataset, run.target).status = run.status;
    }
    for (const raw of await tx<{ dataset: string; target: string; n: number }[]>`
      select dataset, target, count(*)::int as n from raw_responses
      where tick = ${tick} and http_status between 200 and 299 group by 1, 2`) {
      job(raw.dataset, raw.target).rawBodies = raw.n;
    }
    add('positions', 'positions', await tx`select owner as target, count(*)::int as n from positions group by 1`);
    add(
      'positions',
      'position_refreshes',
      await tx`select owner as target, count(*)::int as n from position_refreshes where snapshot_at = ${tick} group by 1`,
    );
    add(
      'positions',
      'position_snapshots',
      await tx`select owner as target, count(*)::int as n from position_snapshots where snapshot_at = ${tick} group by 1`,
    );
    add(
      'positions',
      'position_amounts',
      await tx`select owner as target, count(*)::int as n from position_amounts where snapshot_at = ${tick} group by 1`,
    );
    add(
      'positions',
      'position_farming',
      await tx`select owner as target, count(*)::int as n from position_farming where snapshot_at = ${tick} group by 1`,
    );
    add(
      'nfts',
      'nft_refreshes',
      await tx`select owner as target, count(*)::int as n from nft_refreshes where snapshot_at = ${tick} group by 1`,
    );
    add(
      'nfts',
      'nft_holding_snapshots',
      await tx`select owner as target, count(*)::int as n from nft_holding_snapshots where snapshot_at = ${tick} group by 1`,
    );
    add('nfts', 'nft_tokens', await tx`select owner as target, count(*)::int as n from nft_tokens group by 1`);
    if (batches.length > 0) {
      add(
        'prices',
        'token_price_points',
        await tx`
        select b.target, count(*)::int as n
        from unnest(${batches.flatMap((b) => b.coinTypes.map(() => b.target))}::text[], ${batches.flatMap((b) => b.coinTypes)}::text[]) as b(target, coin_type)
        join tokens k on k.coin_type = b.coin_type and k.chain = 'sui'
        join token_price_points p on p.token_id = k.id
        group by 1`,
      );
    }
    return view;
  })) as TickView;
}

/**
 * The violations of all-or-nothing in `observed`, judged against the fault-free run's view of the
 * same tick (empty when every job is whole or absent).
 */
export function partialJobs(observed: TickView, reference: TickView): string[] {
  const problems: string[] = [];
  for (const [key, seen] of observed) {
    const want = reference.get(key);
    if (!want) {
      problems.push(`${key}: a job the fault-free run does not have (${JSON.stringify(seen)})`);
      continue;
    }
    const rowsSeen = Object.values(seen.rows).reduce((sum, n) => sum + n, 0);
    if (seen.status === 'succeeded') {
      if (seen.rawBodies === 0) problems.push(`${key}: succeeded without its raw body`);
      for (const table of new Set([...Object.keys(want.rows), ...Object.keys(seen.rows)])) {
        if ((seen.rows[table] ?? 0) !== (want.rows[table] ?? 0)) {
          problems.push(
            `${key}: succeeded with ${seen.rows[table] ?? 0} ${table} rows, the fault-free run has ${want.rows[table] ?? 0}`,
          );
        }
      }
    } else if (rowsSeen > 0) {
      problems.push(
        `${key}: ${rowsSeen} rows visible while its run is ${seen.status ?? 'not recorded'} (${JSON.stringify(seen.rows)})`,
      );
    }
  }
  return problems;
}

/**
 * Reads the tick again and again from its own connection while faults happen, collecting every
 * violation seen. A read that fails (the database is down) is counted, not fatal.
 */
export function watchAtomicity(sql: Sql, tick: Date, batches: PriceBatch[], reference: TickView, intervalMs = 150) {
  const violations: string[] = [];
  let observations = 0;
  let failedReads = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const problems = partialJobs(await readTick(sql, tick, batches), reference);
        observations++;
        for (const problem of problems) if (violations.length < 50) violations.push(problem);
      } catch {
        failedReads++;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { observations, failedReads, violations };
    },
  };
}
