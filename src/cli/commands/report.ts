import { Command } from 'commander';
import type { Database } from '../../db/client.ts';
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
import { parseTime, TIME_FORMS } from '../../scheduler/parse-time.ts';
import { splitList } from '../input-lines.ts';
import { ChaintapError } from '../../errors.ts';

const STOPPED_BY_SIGNAL = 'stopped by a signal before the end of the report';

interface ReportFlags {
  from?: string;
  to?: string;
  interval: string;
  format: string;
  out?: string;
}

/** Writes a report read from `readDatabase` to `sink`; returns its rows. */
type WriteReport = (readDatabase: Database, sink: ReportSink, signal: AbortSignal) => Promise<number>;

/**
 * A report's action. Everything the flags alone can tell is checked before the database is opened:
 * the common flags, then the report's own (`prepare`, which returns how to write the report). The
 * report goes to `--out` all or nothing, or to standard output.
 */
function reportAction<Flags extends ReportFlags>(
  name: string,
  prepare: (flags: Flags, checked: { range: ReportRange; format: ReportFormat; now: Date }) => Promise<WriteReport>,
) {
  return async (flags: Flags) => {
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
    const write = await prepare(flags, { range, format, now });
    const { out } = flags;
    if (out !== undefined) await checkOutputPath(out);
    const { withDatabase } = await import('./database-command.ts');
    // Reports read the read replica when DATABASE_READ_URL is set: they say the times they cover.
    const rows = await withDatabase(async (_primary, { readDatabase, signal }) => {
      try {
        if (out !== undefined) return await writeFileAtomically(out, (sink) => write(readDatabase, sink, signal));
        const sink = streamSink(process.stdout);
        const written = await write(readDatabase, sink, signal);
        await sink.flush();
        return written;
      } catch (error) {
        // Whatever the signal cut short (a cancelled statement, the stream): one reason.
        if (signal.aborted) throw new ChaintapError(STOPPED_BY_SIGNAL, { cause: error });
        throw error;
      }
    });
    if (out !== undefined) console.log(`report ${name}: ${rows} row(s) written to ${out}`);
  };
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
  ).action(
    reportAction('portfolio', async (flags: ReportFlags & { address: string }, { range, format, now }) => {
      const { normalizeAddress } = await import('../../chain/address.ts');
      const address = normalizeAddress(flags.address);
      portfolioSteps(range);
      const [{ writePortfolioReport }, { loadPortfolioReport }] = await Promise.all([
        import('../../ops/report-output.ts'),
        import('../../ops/report-portfolio.ts'),
      ]);
      return async (readDatabase, sink) =>
        writePortfolioReport(await loadPortfolioReport(readDatabase, { address, range, now }), format, sink);
    }),
  );

  withRangeOptions(
    report
      .command('prices')
      .description(
        'per token and --interval from --from: open, high, low, close and the number of stored prices (backfilled ones included), gaps marked; streamed',
      )
      .requiredOption(
        '--tokens <list>',
        "comma-separated tokens: SUI coin types (0x2::sui::SUI), any other chain's token as <chain>:<token> (ethereum:0xa0b8…)",
      ),
  ).action(
    reportAction('prices', async (flags: ReportFlags & { tokens: string }, { range, format, now }) => {
      const tokens = splitList(flags.tokens);
      // Checked before anything is opened: a bad token is an input error, exit 1.
      const { parseChainToken } = await import('../../chain/token-id.ts');
      for (const token of tokens) parseChainToken(token);
      priceBucketStarts(range);
      const [{ writePriceReport }, { openPriceReport }] = await Promise.all([
        import('../../ops/report-output.ts'),
        import('../../ops/report-prices.ts'),
      ]);
      return async (readDatabase, sink, signal) =>
        writePriceReport(await openPriceReport(readDatabase, { tokens, range, now }), format, sink, signal);
    }),
  );

  return report;
}
