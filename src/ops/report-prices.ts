import { chainTokenText, parseChainToken } from '../chain/token-id.ts';
import type { Database } from '../db/client.ts';
import { loadPriceTokenSpans, streamPriceBuckets, type PriceBucket } from '../db/stores/reports.ts';
import { InvalidInputError } from '../errors.ts';
import { priceBucketStarts, type ReportRange } from './report-request.ts';
import type { Column } from './report-table.ts';

export interface PriceReportToken {
  /** The token on its chain: a SUI coin type, an EVM address, a Solana mint, … */
  coinType: string;
  chain: string;
  symbol: string | null;
}

/** One bucket of one token: OHLC of its prices in [time, time + interval), or a gap (no price, null OHLC). */
export type PriceReportRow = PriceReportToken &
  Record<'open' | 'high' | 'low' | 'close', string | null> & { time: Date; samples: number; gap: boolean };

/**
 * What `chaintap report prices` reports: the checked tokens, the buckets per token, and each token's
 * rows, oldest first, gaps included, in batches from a cursor (never all at once).
 */
export type PriceReport = Awaited<ReturnType<typeof openPriceReport>>;

/** Rows per batch of the cursor and of the gaps written between stored buckets. */
const BATCH_ROWS = 1000;

/**
 * Checks the tokens and the range, then opens the report. A token is a SUI coin type, or any
 * chain's token as `<chain>:<token>` (chain/token-id.ts: `ethereum:0xa0b8…`), such as those harvested
 * from a watched wallet's positions. A token with no stored price at all, or none in [from, to), is
 * refused with the span it has: nothing would be reported but gaps.
 */
export async function openPriceReport(database: Database, input: { tokens: string[]; range: ReportRange; now: Date }) {
  const { range } = input;
  const parsed = new Map(input.tokens.map(parseChainToken).map((token) => [chainTokenText(token), token]));
  if (parsed.size === 0) throw new InvalidInputError('--tokens names no token');
  const buckets = priceBucketStarts(range);
  const spans = await loadPriceTokenSpans(database, { tokens: [...parsed.values()], from: range.from, to: range.to });
  for (const span of spans) {
    const name = chainTokenText({ chain: span.chain, token: span.coinType });
    if (!span.firstPriceTime || !span.lastPriceTime) throw new InvalidInputError(`no prices stored for token ${name}`);
    if (!span.pricedInRange)
      throw new InvalidInputError(
        `no prices of token ${name} from ${range.from.toISOString()} to ${range.to.toISOString()}: ` +
          `its stored prices span ${span.firstPriceTime.toISOString()} to ${span.lastPriceTime.toISOString()}`,
      );
  }
  const tokens = spans.map(({ coinType, chain, symbol }) => ({ coinType, chain, symbol }));
  return {
    range,
    generatedAt: input.now,
    tokens,
    buckets,
    rows: (token: PriceReportToken) =>
      withGaps(streamPriceBuckets(database, { ...token, ...range, batchRows: BATCH_ROWS }), token, range, buckets),
  };
}

/** The stored buckets with a gap row for every bucket that has none, in batches of about BATCH_ROWS. */
export async function* withGaps(
  stored: AsyncIterable<PriceBucket[]>,
  token: PriceReportToken,
  range: Pick<ReportRange, 'from' | 'intervalMs'>,
  buckets: number,
): AsyncGenerator<PriceReportRow[]> {
  const from = range.from.getTime();
  const noPrice = { open: null, high: null, low: null, close: null, samples: 0, gap: true };
  const gap = (index: number): PriceReportRow => ({
    ...token,
    time: new Date(from + index * range.intervalMs),
    ...noPrice,
  });
  let next = 0;
  const batch: PriceReportRow[] = [];
  // Gap rows up to bucket `end`, yielded in batches as they fill.
  function* gapsUpTo(end: number) {
    for (; next < end; next++) {
      batch.push(gap(next));
      if (batch.length >= BATCH_ROWS) yield batch.splice(0);
    }
  }
  for await (const rows of stored) {
    for (const row of rows) {
      const index = Math.round((row.time.getTime() - from) / range.intervalMs);
      yield* gapsUpTo(index);
      batch.push({ ...token, ...row, gap: false });
      next = index + 1;
    }
    if (batch.length > 0) yield batch.splice(0);
  }
  yield* gapsUpTo(buckets);
  if (batch.length > 0) yield batch;
}

export const PRICE_COLUMNS: Column<PriceReportRow>[] = [
  { name: 'coin_type', value: (r) => r.coinType },
  { name: 'symbol', value: (r) => r.symbol },
  { name: 'time', value: (r) => r.time },
  { name: 'open', value: (r) => r.open },
  { name: 'high', value: (r) => r.high },
  { name: 'low', value: (r) => r.low },
  { name: 'close', value: (r) => r.close },
  { name: 'samples', value: (r) => r.samples },
  { name: 'gap', value: (r) => r.gap },
  { name: 'chain', value: (r) => r.chain },
];
