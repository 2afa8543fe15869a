import Fastify, { type FastifyError } from 'fastify';
import type { RedisClient } from '../runtime/redis-connection.ts';
import type { Context } from '../runtime/context.ts';
import type { Database } from '../db/client.ts';
import type { Queues } from '../queue/queues.ts';
import { registerBullBoard } from './bull-board.ts';
import { assertSafeOpsExposure } from './exposure.ts';
import { createHostCheck } from './host-check.ts';
import { createOpsAuth, pathOf } from './ops-token.ts';
import { contentSecurityPolicy, SECURITY_HEADERS } from './response-headers.ts';
import { withDeadline } from './deadline.ts';
import { checkReadiness } from './readiness.ts';
import { refreshScrapeGauges } from './scrape-gauges.ts';
import { loadStatusPageData } from './status-page-data.ts';
import { loadStatusDocument } from './status-document.ts';
import { renderStatusPage } from './status-page.ts';
import { registerReportRoutes } from './report-routes.ts';

/** How long /readyz, /metrics and the status page wait for Postgres or Redis before answering without them. */
const DEPENDENCY_TIMEOUT_MS = 3_000;

export interface OpsServerDependencies {
  context: Context;
  /** The primary: readiness, and the freshness and capacity gauges of /metrics. */
  database: Database;
  /** What the status and report pages read: the replica (DATABASE_READ_URL), its lag shown; default `database`. */
  readDatabase?: Database;
  /** Any connection to the Redis that holds the queues; used for the readiness PING. */
  redis: RedisClient;
  queues: Queues;
  /** The clock of the status page and the freshness gauge; default: the system clock. */
  now?: () => Date;
}

export type OpsServer = ReturnType<typeof createOpsServer>;

/**
 * The ops HTTP server: liveness, readiness, metrics, Bull Board, status and report pages. OPS_TOKEN
 * guards every route but /healthz and /readyz (one hook); without it, only requests addressed to a
 * loopback name or OPS_ALLOWED_HOSTS are answered. Bull Board acts only with OPS_ADMIN_TOKEN.
 * Throws ConfigError on a non-loopback OPS_HOST without OPS_TOKEN.
 */
export function createOpsServer(dependencies: OpsServerDependencies) {
  const { context, database, redis, queues } = dependencies;
  const readDatabase = dependencies.readDatabase ?? database;
  const now = dependencies.now ?? (() => new Date());
  const { options, metrics } = context;
  assertSafeOpsExposure(options);
  const auth = createOpsAuth({ read: options.OPS_TOKEN, admin: options.OPS_ADMIN_TOKEN });
  const logger = context.logger.child({ component: 'ops-server' });
  // No Fastify logger: its request logs would write URLs, which may carry ?token=.
  const app = Fastify({ logger: false });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    logger.error({ err: error, method: request.method, path: pathOf(request.url) }, 'ops server request failed');
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
    return reply.code(status).send({ error: status >= 500 ? 'internal error' : error.message });
  });
  // A token is what a rebinding page cannot have; without one, the Host says who is asked.
  if (!options.OPS_TOKEN) app.addHook('onRequest', createHostCheck(options.OPS_ALLOWED_HOSTS));
  app.addHook('onRequest', auth.hook);
  app.addHook('onSend', async (request, reply) => {
    const own = reply.getHeader('content-security-policy');
    reply.headers({
      ...SECURITY_HEADERS,
      'content-security-policy': contentSecurityPolicy(pathOf(request.url), typeof own === 'string' ? own : undefined),
    });
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (request, reply) => {
    const readiness = await checkReadiness(database, redis, DEPENDENCY_TIMEOUT_MS);
    if (!readiness.ready) logger.warn({ checks: readiness.checks }, 'not ready');
    // Open to probes; why a check failed (hosts, ports) only to a holder of a token.
    const { postgres, redis: redisCheck } = readiness.checks;
    const checks =
      auth.accessOf(request) === 'none'
        ? { postgres: { ok: postgres.ok }, redis: { ok: redisCheck.ok } }
        : readiness.checks;
    return reply
      .code(readiness.ready ? 200 : 503)
      .send({ status: readiness.ready ? 'ready' : 'unavailable', ready: readiness.ready, checks });
  });

  if (options.METRICS_ENABLED) {
    app.get('/metrics', async (_request, reply) => {
      await refreshScrapeGauges({
        metrics,
        queues,
        redis,
        database,
        readDatabase,
        logger,
        options,
        now,
        timeoutMs: DEPENDENCY_TIMEOUT_MS,
      });
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }

  app.get('/', async (request, reply) => {
    const data = await loadStatusPageData({
      database: readDatabase,
      readReplica: readDatabase !== database,
      queues,
      redis,
      options,
      now: now(),
      timeoutMs: DEPENDENCY_TIMEOUT_MS,
    });
    const token = (request.query as { token?: string }).token;
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:")
      .send(renderStatusPage(data, { token: options.OPS_TOKEN && token ? token : undefined }));
  });

  // `chaintap status --json` for uptime checks and scripts: 503 when Postgres or Redis does not answer.
  app.get('/status.json', async (_request, reply) => {
    const load = loadStatusDocument({ database: readDatabase, queues, redis, options, now: now() });
    try {
      const status = await withDeadline(load, DEPENDENCY_TIMEOUT_MS, 'Postgres or Redis');
      return reply.header('cache-control', 'no-store').send(status);
    } catch (error) {
      load.catch(() => undefined);
      logger.warn({ err: error }, 'status.json could not be read');
      return reply.code(503).send({ error: 'unavailable', message: (error as Error).message });
    }
  });

  registerReportRoutes(app, readDatabase, now);
  registerBullBoard(app, queues, { readOnly: !options.OPS_ADMIN_TOKEN });

  return {
    app,
    /** Listens on OPS_HOST:OPS_PORT (port 0: any free port) and resolves to the server's URL. */
    listen: () => app.listen({ host: options.OPS_HOST, port: options.OPS_PORT }),
    /** Stops listening. The database, Redis connection and queues belong to the caller and stay open. */
    close: (): Promise<void> => app.close(),
  };
}
