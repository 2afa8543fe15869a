import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import postgres, { type Sql } from 'postgres';
import type { WatchedAddress } from '../../src/db/stores/watchlist.ts';
import { normalizeNftHoldings, normalizePositions } from '../../src/normalize/index.ts';
import { simulatedNftAnswer, simulatedPositions } from '../../src/simulator/index.ts';
import { nftHoldingsResponse, positionsResponse } from '../../src/upstream/schemas.ts';
import { DEFAULT_SEED } from '../../src/simulator/world.ts';

const MINUTE = 60_000;

/**
 * What one simulated day left in Postgres against what the simulator answered: its world functions'
 * answer at the slot, read by the pipeline's own schemas and pure normalizers, gives the rows to expect.
 */
export interface DayReconciliation {
  /** Jobs of the day's slots without a succeeded run, per dataset. */
  missingRuns: Record<'positions' | 'nfts', number>;
  /** (target, slot) pairs whose stored rows differ from the simulator's answer at that slot, per dataset. */
  rowMismatches: Record<'positions' | 'nfts', number>;
  /** Rows the day's slots hold, per dataset (prices: one per token and minute). */
  rows: Record<'positions' | 'nfts' | 'prices', number>;
  /** (token, minute) pairs of the day without a price. */
  priceHoles: number;
  /** Succeeded housekeeping runs of the day (the maintenance cron: one). */
  housekeeping: number;
  /** One example of each kind of discrepancy, to start from. */
  examples: string[];
}

export interface ReconcileInput {
  from: number;
  to: number;
  wallets: WatchedAddress[];
  tokens: string[];
  /** The world time the simulator answered a slot's jobs at: the slot plus this. */
  worldLeadMs: number;
  positionsEveryMs: number;
  nftsEveryMs: number;
  /** Whether the simulator runs the living world (`--habits`): the answers are then its. */
  habits: boolean;
}

export async function reconcileDay(sql: Sql, input: ReconcileInput): Promise<DayReconciliation> {
  const { from, to } = input;
  const examples: string[] = [];
  const world = { realShapes: true, habits: input.habits };
  const succeeded = async (dataset: string) => {
    const rows = await sql<{ target: string; tick: Date }[]>`
      select distinct target, tick from ingestion_runs
      where dataset = ${dataset} and status = 'succeeded' and tick >= ${new Date(from)} and tick < ${new Date(to)}`;
    return new Set(rows.map((row) => `${row.target}|${row.tick.getTime()}`));
  };
  const stored = async (table: 'position_snapshots' | 'nft_holding_snapshots') => {
    const rows = await sql<{ owner: string; at: Date; count: number }[]>`
      select owner, snapshot_at as at, count(*)::int as count from ${sql(table)}
      where snapshot_at >= ${new Date(from)} and snapshot_at < ${new Date(to)} group by 1, 2`;
    return new Map(rows.map((row) => [`${row.owner}|${row.at.getTime()}`, row.count]));
  };
  const check = async (
    dataset: 'positions' | 'nfts',
    table: 'position_snapshots' | 'nft_holding_snapshots',
    everyMs: number,
    expected: (wallet: WatchedAddress, worldTime: number) => number,
  ) => {
    const runs = await succeeded(dataset);
    const rows = await stored(table);
    let missing = 0;
    let mismatches = 0;
    for (let tick = Math.ceil(from / everyMs) * everyMs; tick < to; tick += everyMs) {
      for (const wallet of input.wallets) {
        const key = `${wallet.address}|${tick}`;
        if (!runs.has(key)) {
          missing += 1;
          if (missing === 1)
            examples.push(`${dataset}: no succeeded run for ${wallet.address} at ${new Date(tick).toISOString()}`);
          continue;
        }
        const want = expected(wallet, tick + input.worldLeadMs);
        const have = rows.get(key) ?? 0;
        if (want !== have) {
          mismatches += 1;
          if (mismatches === 1)
            examples.push(
              `${dataset}: ${wallet.address} at ${new Date(tick).toISOString()}: ${have} rows, the simulator answered ${want}`,
            );
        }
      }
    }
    return { missing, mismatches, rows: [...rows.values()].reduce((sum, n) => sum + n, 0) };
  };
  const snapshotAt = (time: number) => new Date(time - input.worldLeadMs);
  const positions = await check('positions', 'position_snapshots', input.positionsEveryMs, (wallet, time) => {
    const filter = {
      ...(wallet.chain ? { chain: wallet.chain } : {}),
      ...(wallet.protocols ? { protocols: wallet.protocols } : {}),
    };
    const answer = positionsResponse.parse({
      data: simulatedPositions(wallet.address, time, DEFAULT_SEED, world, filter),
    });
    const ctx = { owner: wallet.address, snapshotAt: snapshotAt(time), fetchedAt: new Date(time) };
    return normalizePositions(answer, ctx).snapshots.length;
  });
  const nfts = await check('nfts', 'nft_holding_snapshots', input.nftsEveryMs, (wallet, time) => {
    const query = { chain: wallet.nftChain, includePnl: wallet.includePnl };
    const answer = nftHoldingsResponse.parse(simulatedNftAnswer(wallet.address, time, DEFAULT_SEED, world, query));
    const ctx = { owner: wallet.address, snapshotAt: snapshotAt(time), fetchedAt: new Date(time) };
    return normalizeNftHoldings(answer, ctx).holdings.length;
  });
  const [prices] = await sql<{ rows: number; holes: number }[]>`
    select count(p.*)::int as rows, count(*) filter (where p.coin_type is null)::int as holes
    from generate_series(${new Date(from)}::timestamptz, ${new Date(to - MINUTE)}::timestamptz, interval '1 minute') as s(slot)
    cross join unnest(${input.tokens}::text[]) as t(coin_type)
    left join token_prices p on p.coin_type = t.coin_type and p.price_time = s.slot`;
  const [maintenance] = await sql<{ count: number }[]>`
    select count(*)::int as count from ingestion_runs
    where dataset = 'maintenance' and target = 'housekeeping' and status = 'succeeded'
      and tick >= ${new Date(from)} and tick < ${new Date(to)}`;
  if (prices!.holes > 0) examples.push(`prices: ${prices!.holes} (token, minute) pairs without a price`);
  return {
    missingRuns: { positions: positions.missing, nfts: nfts.missing },
    rowMismatches: { positions: positions.mismatches, nfts: nfts.mismatches },
    rows: { positions: positions.rows, nfts: nfts.rows, prices: prices!.rows },
    priceHoles: prices!.holes,
    housekeeping: maintenance!.count,
    examples,
  };
}

/**
 * reconcileDay in a child process of its own: normalizing a day of answers (25,000 at 200 wallets)
 * leaves the process that did it hundreds of MB bigger for a while, and the benchmark process's RSS
 * is the scheduler's figure.
 */
export function reconcileDayApart(databaseUrl: string, input: ReconcileInput): Promise<DayReconciliation> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: DayReconciliation | undefined;
    child.once('message', (message) => {
      result = message as DayReconciliation;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`the reconciliation process exited with ${code}`)),
    );
    child.send({ databaseUrl, input });
  });
}

// As the child of reconcileDayApart: one request, one answer, then exit.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', async (message) => {
    const { databaseUrl, input } = message as { databaseUrl: string; input: ReconcileInput };
    const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
    try {
      const reconciliation = await reconcileDay(sql, input);
      await new Promise<void>((resolve) => process.send!(reconciliation, () => resolve()));
    } finally {
      await sql.end();
    }
    process.disconnect();
  });
}
