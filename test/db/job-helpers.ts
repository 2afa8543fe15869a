import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import type { Database } from '../../src/db/client.ts';
import { commitJob, type RunRecord, type Tx } from '../../src/db/index.ts';
import { normalizeNftHoldings, normalizePositions, normalizeTokenPrices } from '../../src/normalize/index.ts';
import { nftHoldingsResponse, positionsResponse, tokenPriceResponse } from '../../src/upstream/schemas.ts';

export const OWNER = `0x${'c3'.repeat(32)}`;
export const SUI = `0x${'0'.repeat(63)}2::sui::SUI`;
export const USDC = '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC';

export function run(dataset: RunRecord['dataset'], target: string, tick: Date): RunRecord {
  return { jobId: `${dataset}-${target}-${tick.getTime()}`, dataset, target, tick, attempts: 1, startedAt: tick };
}

/** Commits a job the way the worker does (rows, raw body, run record in one transaction). */
export function commit(
  database: Database,
  dataset: RunRecord['dataset'],
  target: string,
  tick: Date,
  write: (tx: Tx) => Promise<Record<string, number>>,
) {
  return commitJob(database, {
    run: run(dataset, target, tick),
    raw: [
      {
        dataset,
        endpoint: `/test/${dataset}`,
        target,
        tick,
        httpStatus: 200,
        body: `{"tick":"${tick.toISOString()}"}`,
        receivedAt: tick,
      },
    ],
    httpStatus: 200,
    write,
  });
}

/** The stores' tests write prices of any time: their rows as asked for, in a window of every time. */
const ANY_TIME = { earliest: new Date(0), latest: new Date(8.64e15), answersFor: 'any time' };

export function priceRows(data: unknown[], fetchedAt: Date) {
  const asked = data.flatMap((entry) => {
    const address = (entry as { contract_address?: unknown }).contract_address;
    return typeof address === 'string' ? [normalizeCoinType(address)] : [];
  });
  return normalizeTokenPrices(tokenPriceResponse.parse({ data }), { asked, window: ANY_TIME, fetchedAt });
}

export function positionRows(data: unknown[], snapshotAt: Date, owner = OWNER) {
  return normalizePositions(positionsResponse.parse({ data }), { owner, snapshotAt, fetchedAt: snapshotAt });
}

export function nftRows(groups: unknown[], snapshotAt: Date, owner = OWNER) {
  return normalizeNftHoldings(nftHoldingsResponse.parse(groups), { owner, snapshotAt, fetchedAt: snapshotAt });
}

/** A minimal position of the wire shape: `value`s as given, one entry per list. */
export function wirePosition(
  id: string,
  values: {
    input?: number | string;
    current?: number | string;
    yieldValue?: number | string;
    collected?: number | string;
  },
  extra: Record<string, unknown> = {},
) {
  const entry = (value: number | string | undefined) =>
    value === undefined ? [] : [{ amount: 1, value, token: '0x2::sui::SUI' }];
  return {
    positionId: id,
    chain: 'sui',
    type: 'liquidity_pool',
    input: entry(values.input),
    yieldCollected: entry(values.collected),
    current: { tokens: entry(values.current), yield: entry(values.yieldValue) },
    farming: [{ base_apr: '0.1', rewards_apr: 0.02, total_apr: '0.12', total_apy: 0.1274, rewards: [{ amount: 1 }] }],
    meta: {
      protocol: { name: 'Cetus', protocol: 'cetus', logo: 'https://example.com/c.png', url: 'https://cetus.zone' },
    },
    ...extra,
  };
}

/** Every row of a table or view as JSON text, with the row version (xmin) when asked: churn shows. */
export async function snapshotOf(
  database: Database,
  relation: string,
  options: { versions?: boolean } = {},
): Promise<string[]> {
  const rows = await database.sql.unsafe(
    `select ${options.versions ? 'xmin::text as version, ' : ''}to_jsonb(r) as row from ${relation} r`,
  );
  return rows.map((row) => JSON.stringify(row)).sort();
}
