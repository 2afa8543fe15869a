import { Command } from 'commander';
import { normalizeAddress } from '../../chain/address.ts';
import { checkOutputPath, streamSink, writeFileAtomically, type ReportSink } from '../../ops/report-file.ts';
import {
  DEFAULT_REPORT_INTERVAL,
  parseReportFormat,
  portfolioSteps,
  priceBucketStarts,
  reportRange,
  type ReportFormat,
  type ReportRange,
} from '../../ops/report-request.ts';
import { parseTime, TIME_FORMS } from '../parse-time.ts';

/** What the actions use, loaded when one runs. */
const load = () => Promise.all([import('./database-command.ts'), import('../../ops/report-output.ts')]);

interface ReportFlags {
  from?: string;
  to?: string;
  interval: string;
  format: string;
  out?: string;
}

interface CheckedFlags {
  range: ReportRange;
  format: ReportFormat;
  now: Date;
}

/** Everything the flags alone can tell is checked here, before the database is opened. */
function checkFlags(flags: ReportFlags): CheckedFlags {
  const now = new Date();
  const format = parseReportFormat(flags.format);
  const range = reportRange(
    {
      from: flags.from === undefined ? undefined : parseTime('--from', flags.from, now),
      to: flags.to === undefined ? undefined : parseTime('--to', flags.to, now),
      interval: flags.interval,
    },
    now,
  );
  return { range, format, now };
}

/**
 * Writes to `--out` all or nothing, or to standard output. Returns what `write` returned: the rows.
 */
async function emit(out: string | undefined, write: (sink: ReportSink) => Promise<number>): Promise<number> {
  if (out === undefined) {
    const sink = streamSink(process.stdout);
    const rows = await write(sink);
    await sink.flush();
    return rows;
  }
  return writeFileAtomically(out, write);
}

function withRangeOptions(command: Command): Command {
  return command
    .option('--from <time>', `start of the range (default: 30 days before --to): ${TIME_FORMS}`)
    .option('--to <time>', 'end of the range (default: now)')
    .option('--interval <step>', 'step: 15m, 1h, 1d (a number and s, m, h or d)', DEFAULT_REPORT_INTERVAL)
    .option('--format <format>', 'csv, json or html', 'csv')
    .option('--out <file>', 'write this file, all or nothing (default: standard output)');
}

export function reportCommand(): Command {
  const report = new Command('report').description(
    'historical reports from the database: portfolio value and PnL of an address, token prices as OHLC (CSV, JSON or HTML)',
  );

  withRangeOptions(
    report
      .command('portfolio')
      .description(
        "an address's value and PnL at --from and every --interval up to --to (the latest refresh at or before each time), then its positions and NFT collections at --to",
      )
      .requiredOption('--address <address>', 'a watched address, or one with stored refreshes'),
  ).action(async (flags: ReportFlags & { address: string }) => {
    const { range, format, now } = checkFlags(flags);
    const address = normalizeAddress(flags.address);
    portfolioSteps(range);
    if (flags.out !== undefined) await checkOutputPath(flags.out);
    const [[{ withDatabases }, { writePortfolioReport }], { loadPortfolioReport }] = await Promise.all([
      load(),
      import('../../ops/report-portfolio.ts'),
    ]);
    // Reports read the read replica when DATABASE_READ_URL is set: they say the times they cover.
    const rows = await withDatabases(async ({ readDatabase }) => {
      const data = await loadPortfolioReport(readDatabase, { address, range, now });
      return emit(flags.out, (sink) => writePortfolioReport(data, format, sink));
    });
    if (flags.out !== undefined) console.log(`report portfolio: ${rows} row(s) written to ${flags.out}`);
  });

  withRangeOptions(
    report
      .command('prices')
      .description(
        'per token and --interval from --from: open, high, low, close and the number of stored prices (backfilled ones included), gaps marked; streamed',
      )
      .requiredOption('--tokens <list>', 'comma-separated coin types'),
  ).action(async (flags: ReportFlags & { tokens: string }) => {
    const { range, format, now } = checkFlags(flags);
    const coinTypes = flags.tokens
      .split(',')
      .map((coin) => coin.trim())
      .filter(Boolean);
    priceBucketStarts(range);
    if (flags.out !== undefined) await checkOutputPath(flags.out);
    const [[{ withDatabases }, { writePriceReport }], { openPriceReport }] = await Promise.all([
      load(),
      import('../../ops/report-prices.ts'),
    ]);
    const rows = await withDatabases(async ({ readDatabase }, context) => {
      const prices = await openPriceReport(readDatabase, { coinTypes, range, now });
      return emit(flags.out, (sink) => writePriceReport(prices, format, sink, context.signal));
    });
    if (flags.out !== undefined) console.log(`report prices: ${rows} row(s) written to ${flags.out}`);
  });

  return report;
}
