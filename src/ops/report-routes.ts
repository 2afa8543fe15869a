import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.ts';
import { InvalidInputError } from '../errors.ts';
import { html } from './html.ts';
import { renderPortfolioHtml } from './report-html.ts';
import { writePriceReport } from './report-output.ts';
import { loadPortfolioReport } from './report-portfolio.ts';
import { openPriceReport } from './report-prices.ts';
import { priceBucketStarts, reportRange } from './report-request.ts';
import { parseTime } from '../scheduler/parse-time.ts';

/** The report is a document of its own: inline styles only, nothing else may load. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'";

/** A query parameter given once; repeated, it is refused rather than one of its values picked. */
function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidInputError(`${name} must be given once`);
  return value;
}

function errorPage(message: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chaintap report: bad request</title></head>
<body><h1>Cannot make this report</h1><p>${message}</p><p><a href="/">Status page</a></p></body></html>
`.text;
}

/** Most buckets per token a report page holds (the CLI streams a million): 10,000 is 10 days at 1m. */
const MAX_PAGE_BUCKETS = 10_000;

/**
 * GET /report/portfolio?address=A[&from=ISO][&to=ISO][&interval=1d] and
 * GET /report/prices?tokens=a,b[&from…]: `chaintap report portfolio|prices --format html`, read from
 * `database` (the replica, if any); a token of any chain is named as `--tokens` names it
 * (`ethereum:0xa0b8…`). On the ops server's app, so that its OPS_TOKEN hook guards them. Bad input
 * answers 400 with the reason.
 */
export function registerReportRoutes(app: FastifyInstance, database: Database, now: () => Date): void {
  const range = (query: Record<string, unknown>, clock: Date) => {
    const from = single(query, 'from');
    const to = single(query, 'to');
    return reportRange(
      {
        // The command's parser: the same dates exist, the same range of years is supported.
        from: from ? parseTime('from', from, clock) : undefined,
        to: to ? parseTime('to', to, clock) : undefined,
        interval: single(query, 'interval'),
      },
      clock,
      { from: 'from', to: 'to', interval: 'interval' },
    );
  };
  const route = (path: string, render: (query: Record<string, unknown>, clock: Date) => Promise<string>) =>
    app.get(path, async (request, reply) => {
      const page = (status: number, text: string) =>
        reply
          .code(status)
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('content-security-policy', CONTENT_SECURITY_POLICY)
          .send(text);
      try {
        return page(200, await render(request.query as Record<string, unknown>, now()));
      } catch (error) {
        if (error instanceof InvalidInputError) return page(400, errorPage(error.message));
        throw error;
      }
    });

  route('/report/portfolio', async (query, clock) => {
    const address = single(query, 'address');
    if (!address) throw new InvalidInputError('address is required: /report/portfolio?address=<address>');
    const report = await loadPortfolioReport(database, { address, range: range(query, clock), now: clock });
    return renderPortfolioHtml(report, { back: '/' });
  });

  route('/report/prices', async (query, clock) => {
    const tokens = single(query, 'tokens');
    if (!tokens) throw new InvalidInputError('tokens is required: /report/prices?tokens=<token>,<token>');
    const asked = range(query, clock);
    if (priceBucketStarts(asked) > MAX_PAGE_BUCKETS)
      throw new InvalidInputError(
        `more than ${MAX_PAGE_BUCKETS} intervals per token: use a larger interval or a shorter range (or chaintap report prices)`,
      );
    const report = await openPriceReport(database, { tokens: splitTokens(tokens), range: asked, now: clock });
    const parts: string[] = [];
    await writePriceReport(report, 'html', { write: async (text) => void parts.push(text) });
    return parts.join('');
  });
}

function splitTokens(list: string): string[] {
  return list
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '');
}
