import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ChaintapError } from '../errors.ts';
import { FaultDraws, resolveFaults, type FaultDecision, type SimulatorFaults } from './faults.ts';
import {
  answerOperation,
  errorAnswer,
  matchRoute,
  MAX_BODY_BYTES,
  readBody,
  writeAnswer,
  type Answer,
} from './routes.ts';
import { requestWindow } from './request-window.ts';
import { StatsRecorder, type SimulatorStats } from './stats.ts';
import { DEFAULT_SEED, resolveWorld, type SimulatorWorld } from './world.ts';
import { WorldClock, type WorldClockSetting, type WorldClockState } from './world-clock.ts';
import { worldRecord } from './world-record.ts';

export interface SimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a random free port. */
  port?: number;
  /** Requests whose x-api-key differs get 401 before anything else happens. */
  apiKey: string;
  /** Default 'chaintap'. */
  seed?: string;
  faults?: Partial<SimulatorFaults>;
  world?: Partial<SimulatorWorld>;
  /** World time = (fixedTimeMs ?? now) + clockOffsetMs, at the start. */
  clockOffsetMs?: number;
  /** World milliseconds per real millisecond (default 1; 0 stops the world clock): world-clock.ts. */
  clockRate?: number;
  /** Freezes the world time (tests, fault-vs-clean comparisons). */
  fixedTimeMs?: number;
  /** Seed of the fault draws; default random. */
  faultSeed?: number;
  /**
   * Echo a key it does not accept in its 401/403 answers (body, in every encoding, and header), as a
   * careless upstream might: for tests that check the key never shows anywhere. Default false.
   */
  echoKey?: boolean;
}

/** What a running simulator lets its owner change; also served under /_simulator/ (answerControl). */
export interface SimulatorControl {
  stats(): SimulatorStats;
  resetStats(): void;
  setFaults(faults: Partial<SimulatorFaults>): void;
  /** World time = (fixedTimeMs ?? now) + ms, at rate 1. */
  setClockOffset(ms: number): void;
  /** The world at worldTimeMs now and/or running at `rate` from now (throws InvalidInputError). */
  setClock(setting: WorldClockSetting): void;
  clock(): WorldClockState;
}

export interface RunningSimulator extends SimulatorControl {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the simulated upstream (upstream-api.md) on plain node:http with keep-alive. */
export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  if (!options.apiKey) throw new TypeError('startSimulator needs an apiKey');
  const expectedKey = Buffer.from(options.apiKey);
  const world = resolveWorld(options.world);
  const seed = options.seed ?? DEFAULT_SEED;
  const stats = new StatsRecorder();
  const draws = new FaultDraws(options.faultSeed);
  let faults = resolveFaults(options.faults ?? {});
  let limiter = requestWindow(faults.rateLimitWindowMs, faults.rateLimitWindow);
  const clock = new WorldClock(() => options.fixedTimeMs ?? Date.now(), options.clockOffsetMs, options.clockRate);
  const timers = new Set<NodeJS.Timeout>();

  const worldTime = () => clock.now();

  const send = (res: ServerResponse, answer: Answer, delayMs: number, headers: Record<string, string> = {}) => {
    const write = () => {
      stats.answered(answer.status);
      writeAnswer(res, answer, headers);
    };
    if (delayMs <= 0) return write();
    const timer = setTimeout(() => {
      timers.delete(timer);
      write();
    }, delayMs);
    timers.add(timer);
  };

  const control: SimulatorControl = {
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    setFaults: (changes) => {
      faults = resolveFaults(changes, faults);
      limiter = requestWindow(faults.rateLimitWindowMs, faults.rateLimitWindow);
    },
    setClockOffset: (ms) => clock.setOffset(ms),
    setClock: (setting) => clock.set(setting),
    clock: () => clock.state(),
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const now = performance.now();
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const pathname = queryStart === -1 ? target : target.slice(0, queryStart);
    const header = req.headers['x-api-key'];
    const apiKey = Array.isArray(header) ? header.join(', ') : header;
    const given = apiKey === undefined ? undefined : Buffer.from(apiKey);
    const keyAccepted = given?.length === expectedKey.length && timingSafeEqual(given, expectedKey);
    if (pathname.startsWith('/_simulator/') && keyAccepted)
      return answerControl(req, res, { pathname, target, control, seed, world });
    const route = matchRoute(req.method ?? 'GET', pathname);
    stats.arrived(now, apiKey, route.kind === 'operation' ? route.operation : undefined);
    const fault = draws.draw(faults);
    const reply = (answer: Answer, headers?: Record<string, string>) => send(res, answer, fault.delayMs, headers);
    const replyError = (status: number, error: string, message: string, headers?: Record<string, string>) =>
      reply(errorAnswer(status, error, message, world.realShapes), headers);

    if (!keyAccepted) {
      req.resume();
      // The real service answers a key it does not accept with 403, a missing key with 401.
      const status = world.realShapes && apiKey !== undefined ? 403 : 401;
      if (options.echoKey && apiKey !== undefined)
        return reply({ status, body: echoedKeyBody(apiKey) }, { 'x-api-key-received': apiKey });
      if (status === 403) return replyError(403, 'forbidden', 'Forbidden');
      return replyError(401, 'unauthorized', 'missing or invalid x-api-key header');
    }
    if (faults.rateLimit > 0) {
      // Counted by the wall clock, so that a fixed window starts at a whole second or minute.
      const at = performance.timeOrigin + now;
      if (limiter.count(at) >= faults.rateLimit) {
        req.resume();
        const retryAfter = String(Math.max(1, Math.ceil(limiter.msUntilSlotFrees(at) / 1000)));
        const { rateLimit, rateLimitWindowMs, rateLimitWindow } = faults;
        const message = `more than ${rateLimit} requests in ${rateLimitWindowMs} ms (${rateLimitWindow} window)`;
        return replyError(429, 'rate_limited', message, { 'retry-after': retryAfter });
      }
      limiter.add(at);
    }
    if (route.kind !== 'operation' || (fault.kind !== 'none' && fault.kind !== 'malformed')) req.resume();
    // Held open until the client gives up or the simulator closes.
    if (fault.kind === 'timeout') return stats.answered('timeout');
    if (fault.kind === 'error5xx') return reply(serverError(fault, world.realShapes));
    if (fault.kind === 'error429') {
      const retryAfter = String(faults.retryAfterSeconds);
      return replyError(429, 'too_many_requests', 'rate limit exceeded, retry later', { 'retry-after': retryAfter });
    }
    if (route.kind === 'not-found') return replyError(404, 'not_found', `no such path: ${pathname}`);
    if (route.kind === 'method-not-allowed')
      return replyError(405, 'method_not_allowed', `use ${route.allow}`, { allow: route.allow });
    const query = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));
    const respond = (rawBody: string) => {
      const answer = answerOperation({ ...route, query, rawBody, worldTimeMs: worldTime() }, seed, world);
      reply(fault.kind === 'malformed' && answer.status === 200 ? malformed(answer, fault) : answer);
    };
    if (req.method !== 'POST') {
      req.resume();
      return respond('');
    }
    readBody(req, (rawBody) => {
      if (rawBody !== undefined) return respond(rawBody);
      replyError(413, 'payload_too_large', `the body exceeds ${MAX_BODY_BYTES} bytes`);
    });
  };

  const server = createServer({ keepAliveTimeout: 30_000 }, handle);

  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    port,
    ...control,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * The simulator's own endpoints, for a simulator run as a separate process (`chaintap simulate`):
 * benchmarks and fault tests read its stats and change its faults and clock over HTTP, and read the
 * living world's record (world-record.ts). They need the API key, are not counted in the stats and
 * never get faults.
 *
 *   GET  /_simulator/stats           -> SimulatorStats
 *   POST /_simulator/stats/reset     -> {}
 *   POST /_simulator/faults          {latencyMs?, error5xxRate?, ...} -> {}
 *   GET  /_simulator/clock           -> {worldTimeMs, rate}
 *   POST /_simulator/clock           {offsetMs} | {worldTimeMs?, rate?} -> {worldTimeMs, rate}
 *   GET  /_simulator/changes, GET or POST /_simulator/habits: world-record.ts
 */
interface ControlRequest {
  pathname: string;
  /** The request target, with its query. */
  target: string;
  control: SimulatorControl;
  seed: string;
  world: SimulatorWorld;
}

const BODY_ROUTES = ['POST /_simulator/faults', 'POST /_simulator/clock', 'POST /_simulator/habits'];

function answerControl(req: IncomingMessage, res: ServerResponse, request: ControlRequest) {
  const reply = (status: number, body: unknown) => writeAnswer(res, { status, body: JSON.stringify(body) });
  const route = `${req.method} ${request.pathname}`;
  const answer = (body: unknown) => {
    try {
      reply(200, controlBody(route, request, body));
    } catch (error) {
      if (!(error instanceof ChaintapError)) throw error;
      reply(error instanceof NoSuchEndpoint ? 404 : 400, {
        error: error instanceof NoSuchEndpoint ? 'not_found' : 'bad_request',
        message: error.message,
      });
    }
  };
  if (!BODY_ROUTES.includes(route)) {
    req.resume();
    return answer(undefined);
  }
  readBody(req, (text) => {
    let body: unknown;
    try {
      body = JSON.parse(text ?? '');
    } catch {
      return reply(400, { error: 'bad_request', message: 'the body is not valid JSON' });
    }
    if (typeof body !== 'object' || body === null)
      return reply(400, { error: 'bad_request', message: 'the body must be a JSON object' });
    answer(body);
  });
}

class NoSuchEndpoint extends ChaintapError {}

/** The body of a control answer; throws ChaintapError for a bad request, NoSuchEndpoint for an unknown route. */
function controlBody(route: string, { target, control, seed, world }: ControlRequest, body: unknown): unknown {
  const queryStart = target.indexOf('?');
  const query = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));
  const worldTimeMs = control.clock().worldTimeMs;
  switch (route) {
    case 'GET /_simulator/stats':
      return control.stats();
    case 'POST /_simulator/stats/reset':
      control.resetStats();
      return {};
    case 'POST /_simulator/faults':
      control.setFaults(body as Partial<SimulatorFaults>);
      return {};
    case 'GET /_simulator/clock':
      return control.clock();
    case 'POST /_simulator/clock':
      setClock(control, body as Record<string, unknown>);
      return control.clock();
    case 'GET /_simulator/changes':
      return worldRecord({ route: 'changes', query, seed, world, worldTimeMs });
    case 'GET /_simulator/habits':
    case 'POST /_simulator/habits':
      return worldRecord({ route: 'habits', query, body, seed, world, worldTimeMs });
    default:
      throw new NoSuchEndpoint(`no such simulator endpoint: ${route}`);
  }
}

/** {offsetMs} sets the offset (as it always has); {worldTimeMs?, rate?} the world time and its rate. */
function setClock(control: SimulatorControl, body: Record<string, unknown>) {
  const { offsetMs, worldTimeMs, rate } = body;
  if (offsetMs !== undefined) {
    if (worldTimeMs !== undefined || rate !== undefined)
      throw new ChaintapError('give offsetMs alone, or worldTimeMs and/or rate');
    if (typeof offsetMs !== 'number' || !Number.isSafeInteger(offsetMs))
      throw new ChaintapError('offsetMs must be an integer');
    return control.setClockOffset(offsetMs);
  }
  if (worldTimeMs === undefined && rate === undefined) throw new ChaintapError('give offsetMs, worldTimeMs or rate');
  control.setClock({ worldTimeMs, rate } as WorldClockSetting);
}

/**
 * An error body that echoes a rejected key (SimulatorOptions.echoKey) in every form an answer may carry
 * it. `header` is the key as the header brought it (each byte a character).
 */
function echoedKeyBody(header: string): string {
  const key = Buffer.from(header, 'latin1').toString('utf8');
  const json = JSON.stringify(key).slice(1, -1);
  // Every UTF-16 unit a JSON encoder may escape (all but letters, digits and - . _ ~), escaped.
  const unicode = key.replace(/[^A-Za-z0-9._~-]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const url = encodeURIComponent(key);
  const urlLower = url.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
  return (
    `{"error":"invalid x-api-key: ${json}","escaped":"${unicode}","url":"${url}","url_lower":"${urlLower}"}\n` +
    `rejected key: ${key}\n`
  );
}

/** A 500 with a JSON body, or a 502/503 that a gateway answered, half the time with its HTML page. */
function serverError(fault: FaultDecision, realShapes: boolean): Answer {
  const status = fault.flavour < 1 / 3 ? 500 : fault.flavour < 2 / 3 ? 502 : 503;
  if (status === 500) return errorAnswer(500, 'internal_error', 'internal server error', realShapes);
  const [error, title] =
    status === 502 ? ['bad_gateway', 'Bad Gateway'] : ['service_unavailable', 'Service Temporarily Unavailable'];
  if ((fault.flavour * 6) % 1 < 0.5) {
    const heading = `${status} ${title}`;
    const page = `<html>\r\n<head><title>${heading}</title></head>\r\n<body>\r\n<center><h1>${heading}</h1></center>`;
    return { status, body: `${page}\r\n</body>\r\n</html>\r\n` };
  }
  return errorAnswer(status, error, 'the upstream is temporarily unavailable', realShapes);
}

/** A 200 whose body is not valid JSON (cut short, an HTML page) or valid JSON of the wrong shape. */
function malformed(answer: Answer, fault: FaultDecision): Answer {
  if (fault.flavour < 0.25)
    return { status: 200, body: answer.body.slice(0, Math.max(1, Math.floor(answer.body.length / 2))) };
  if (fault.flavour < 0.5)
    return { status: 200, body: '<!DOCTYPE html><html><body><h1>Maintenance</h1></body></html>' };
  if (fault.flavour < 0.75) return { status: 200, body: `{"data":{"items":${answer.body}}}` };
  return { status: 200, body: '{"data":"unavailable","status":"degraded"}' };
}
