import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.ts';
import { InvalidInputError } from '../errors.ts';
import { html } from './html.ts';
import { renderPortfolioHtml } from './report-html.ts';
import { loadPortfolioReport } from './report-portfolio.ts';
import { parseIsoTime, reportRange } from './report-request.ts';

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

/**
 * GET /report/portfolio?address=A[&from=ISO][&to=ISO][&interval=1d]: `chaintap report portfolio
 * --format html`, read from `database` (the replica, if any). On the ops server's app, so that its
 * OPS_TOKEN hook guards it. Bad input answers 400 with the reason.
 */
export function registerReportRoutes(app: FastifyInstance, database: Database, now: () => Date): void {
  app.get('/report/portfolio', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const page = (status: number, text: string) =>
      reply
        .code(status)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', CONTENT_SECURITY_POLICY)
        .send(text);
    try {
      const address = single(query, 'address');
      if (!address) throw new InvalidInputError('address is required: /report/portfolio?address=<address>');
      const from = single(query, 'from');
      const to = single(query, 'to');
      const clock = now();
      const range = reportRange(
        {
          from: from ? parseIsoTime('from', from) : undefined,
          to: to ? parseIsoTime('to', to) : undefined,
          interval: single(query, 'interval'),
        },
        clock,
      );
      const report = await loadPortfolioReport(database, { address, range, now: clock });
      return page(200, renderPortfolioHtml(report, { back: '/' }));
    } catch (error) {
      if (error instanceof InvalidInputError) return page(400, errorPage(error.message));
      throw error;
    }
  });
}
