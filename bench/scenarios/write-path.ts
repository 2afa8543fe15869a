import { copyInto, copyText, type CopyValue } from '../support/copy.ts';
import { ensurePartitions, withTransaction, writeTokenPrices } from '../../src/db/index.ts';
import type { PriceRow } from '../../src/db/schema/rows.ts';
import type { BenchDatabase } from '../support/services.ts';
import { createBenchDatabase } from '../support/services.ts';
import { normalizedPrices, priceRows, PRICES_START } from '../support/price-rows.ts';
import type { Figure } from '../support/report.ts';
import { round, type Scenario } from '../support/scenario.ts';

const POINT_COLUMNS = [
  'price_time',
  'token_id',
  'fetch_delay_s',
  'source_id',
  'price',
  'price_24h_ago',
  'origin',
] as const;
const ROUNDS = 3;

interface Shape {
  label: string;
  /** Rows per write (one transaction each). */
  perWrite: number;
  tokens: number;
  total: number;
}

/**
 * Writes the size of one price job: every write the pipeline makes (a price job, a backfill step, a
 * catch-up slot) is one answer of at most 50 tokens at one time.
 */
const SHAPES: Shape[] = [{ label: 'job-size', perWrite: 50, tokens: 50, total: 100_000 }];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The writes of a shape: `perWrite` rows each, tokens x consecutive minutes. */
function writesOf(shape: Shape): PriceRow[][] {
  const minutesPerWrite = Math.max(1, shape.perWrite / shape.tokens);
  const writes: PriceRow[][] = [];
  for (let minute = 0; writes.length * shape.perWrite < shape.total; minute += minutesPerWrite) {
    writes.push(priceRows(0, shape.tokens, minute, minutesPerWrite));
  }
  return writes;
}

/** token_price_points_copy: the same columns, key, partitioning and monthly partitions as token_price_points. */
async function createCopyTable(database: BenchDatabase, months: string[]): Promise<void> {
  await database.sql`create table token_price_points_copy (like token_price_points including all) partition by range (price_time)`;
  for (const month of months)
    await database.sql`select chaintap_ensure_month_partition('token_price_points_copy', ${month}::date)`;
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/**
 * The same rows (a) by a plain COPY of the stored form (ids resolved, text built from the rows)
 * into an identical table, (b) through writeTokenPrices into an empty token_price_points, (c) the
 * same again, every row already stored. One transaction per write in each; ROUNDS rounds, medians.
 */
async function measureShape(
  database: BenchDatabase,
  shape: Shape,
  log: (message: string) => void,
): Promise<{ copy: number; fresh: number; stored: number }> {
  const writes = writesOf(shape);
  const rows = writes.length * shape.perWrite;
  // Token and source ids as the write path assigns them, for the plain COPY of the same rows.
  await withTransaction(database, 'prices.write', (tx) => writeTokenPrices(tx, normalizedPrices(writes[0]!)));
  const tokenIds = new Map(
    (await database.sql<{ coinType: string; id: number }[]>`select coin_type as "coinType", id from tokens`).map(
      (r) => [r.coinType, r.id],
    ),
  );
  const sourceIds = new Map(
    (await database.sql<{ name: string; id: number }[]>`select name, id from price_sources`).map((r) => [r.name, r.id]),
  );
  const stored = (p: PriceRow): CopyValue[] => [
    p.priceTime,
    tokenIds.get(p.coinType)!,
    Math.floor(p.fetchedAt.getTime() / 1000) - Math.floor(p.priceTime.getTime() / 1000),
    sourceIds.get(p.source!)!,
    p.price,
    p.price24hAgo,
    1,
  ];
  // Both sides start from rows in memory: the normalizer's output for the write path, the stored
  // form (ids resolved) for the plain COPY, which then only builds its text and copies.
  const normalized = writes.map(normalizedPrices);
  const storedForms = writes.map((write) => write.map(stored));
  const times = { copy: [] as number[], fresh: [] as number[], stored: [] as number[] };
  for (let round = 1; round <= ROUNDS; round++) {
    log(
      `write path, ${shape.label}: round ${round} of ${ROUNDS}, ${rows.toLocaleString('en-US')} rows in writes of ${shape.perWrite}`,
    );
    await database.sql`truncate token_price_points, token_price_points_copy`;
    await database.sql`checkpoint`;
    times.copy.push(
      await timed(async () => {
        for (const write of storedForms) {
          await withTransaction(database, 'prices.write', (tx) =>
            copyInto(tx.sql, 'token_price_points_copy', POINT_COLUMNS, copyText(write)),
          );
        }
      }),
    );
    await database.sql`checkpoint`;
    const writeAll = async () => {
      for (const write of normalized)
        await withTransaction(database, 'prices.write', (tx) => writeTokenPrices(tx, write));
    };
    times.fresh.push(await timed(writeAll));
    times.stored.push(await timed(writeAll));
  }
  const [count] = await database.sql<{ n: number }[]>`select count(*)::int as n from token_price_points`;
  if (count!.n !== rows) throw new Error(`expected ${rows} stored prices, found ${count!.n}`);
  return { copy: rows / median(times.copy), fresh: rows / median(times.fresh), stored: rows / median(times.stored) };
}

/** writeTokenPrices against a plain COPY of the same rows into an identical table, in the same run. */
export const writePathScenario: Scenario = {
  name: 'write-path',
  description:
    '100,000 price rows in writes of one price job through writeTokenPrices vs a plain COPY of the same rows, new and already stored',
  async run({ services, log }) {
    const database = await createBenchDatabase(services, 'write_path', 4);
    try {
      const months = [new Date(PRICES_START), new Date(PRICES_START + 40 * 86_400_000)];
      await ensurePartitions(database, { from: months[0]!, to: months[1]! });
      await createCopyTable(
        database,
        months.map((month) => `${month.toISOString().slice(0, 7)}-01`),
      );
      const figures: Figure[] = [];
      const rates: Figure[] = [];
      for (const shape of SHAPES) {
        const rate = await measureShape(database, shape, log);
        const n = `${shape.label} (${shape.perWrite.toLocaleString('en-US')} rows per write)`;
        figures.push(
          {
            name: `${n}: new rows / plain COPY`,
            value: round(rate.fresh / rate.copy, 2),
            unit: '',
            target: { op: '>=', value: 0.8 },
          },
          {
            name: `${n}: stored rows / plain COPY`,
            value: round(rate.stored / rate.copy, 2),
            unit: '',
            target: { op: '>=', value: 0.45 },
          },
        );
        rates.push(
          { name: `${n}: plain COPY`, value: Math.round(rate.copy), unit: 'rows/s' },
          { name: `${n}: write path, new rows`, value: Math.round(rate.fresh), unit: 'rows/s' },
          { name: `${n}: write path, every row stored`, value: Math.round(rate.stored), unit: 'rows/s' },
        );
      }
      return {
        scenario: 'write-path',
        figures: [...figures, ...rates],
        notes: [
          `medians of ${ROUNDS} rounds; each round: plain COPY into token_price_points_copy (same columns, key and monthly partitions), then writeTokenPrices into the emptied token_price_points, then the same rows again`,
          "one transaction per write on both sides, both starting from rows in memory: the normalizer's output for the write path, the stored form (token and source ids resolved) for the plain COPY, whose time includes building the COPY text",
          'job-size: 50 tokens x 2,000 minutes in writes of one price job (50 tokens, one minute), the largest write the pipeline makes',
        ],
      };
    } finally {
      await database.drop();
    }
  },
};
