import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidInputError } from '../errors.ts';
import { simulatedNftAnswer } from './nft-holdings.ts';
import { simulatedPositions } from './positions.ts';
import { simulatedProtocolsResponse } from './protocols.ts';
import type { Operation } from './stats.ts';
import { simulatedPriceResponse } from './token-prices.ts';
import type { SimulatorWorld } from './world.ts';

/** Which operation a request is for, from its method and path alone. */
export type Route =
  | { kind: 'operation'; operation: Operation; address?: string }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed'; allow: string };
type OperationRequest = Extract<Route, { kind: 'operation' }> & {
  query: URLSearchParams;
  rawBody: string;
  worldTimeMs: number;
};

const ADDRESS_PATH = /^\/v2\/address\/([^/]+)\/(positions|nft-holding)$/;

export function matchRoute(method: string, pathname: string): Route {
  const expect = (allowed: string, operation: Operation, address?: string): Route =>
    method === allowed ? { kind: 'operation', operation, address } : { kind: 'method-not-allowed', allow: allowed };
  if (pathname === '/tokens/sui/price') return expect('POST', 'prices');
  if (pathname === '/v2/defi/protocols') return expect('GET', 'protocols');
  const match = ADDRESS_PATH.exec(pathname);
  if (match) return expect('GET', match[2] === 'positions' ? 'positions' : 'nfts', match[1]);
  return { kind: 'not-found' };
}

export type Answer = { status: number; body: string };

export const MAX_BODY_BYTES = 1024 * 1024;

/** The body as text, or undefined when it is larger than MAX_BODY_BYTES. */
export function readBody(req: IncomingMessage, done: (body: string | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => done(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
}

/** Writes an answer: an HTML page as text/html, anything else as JSON. */
export function writeAnswer(res: ServerResponse, { status, body }: Answer, headers: Record<string, string> = {}) {
  res.writeHead(status, {
    'content-type': body.startsWith('<') ? 'text/html' : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** `{ error: code, message }`; real answers carry only an `error` string, the message. */
export function errorAnswer(status: number, error: string, message: string, realShapes = false): Answer {
  return { status, body: JSON.stringify(realShapes ? { error: message } : { error, message }) };
}

/**
 * Answers an operation from the world functions, anew for each request: fast enough (about 1,000
 * positions answers a second on one core, bench/tools/simulator-throughput.ts) to need no cache.
 */
export function answerOperation(request: OperationRequest, seed: string, world: SimulatorWorld): Answer {
  try {
    return { status: 200, body: JSON.stringify(operationBody(request, seed, world)) };
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return errorAnswer(400, 'bad_request', error.message, world.realShapes);
  }
}

function operationBody(request: OperationRequest, seed: string, world: SimulatorWorld) {
  const { operation, address: rawAddress = '', query, rawBody, worldTimeMs } = request;
  if (operation === 'protocols') return simulatedProtocolsResponse();
  if (operation === 'prices') {
    const body = parseOr(() => JSON.parse(rawBody) as unknown, 'the body is not valid JSON');
    return simulatedPriceResponse(body, worldTimeMs, seed, world.realShapes);
  }
  const address = parseOr(
    () => decodeURIComponent(rawAddress),
    'the address in the path is not valid percent-encoding',
  );
  const chain = query.get('chain') || undefined;
  if (operation === 'nfts') {
    const includePnl = parseBoolean('includePnl', query.get('includePnl'));
    return simulatedNftAnswer(address, worldTimeMs, seed, world, { chain, includePnl });
  }
  const protocol = query.get('protocol') || undefined;
  parseBoolean('force_refresh', query.get('force_refresh'));
  const protocols = protocol
    ?.split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  return { data: simulatedPositions(address, worldTimeMs, seed, world, { chain, protocols }) };
}

/** What `parse` returns; InvalidInputError(message) if it throws. */
function parseOr<T>(parse: () => T, message: string): T {
  try {
    return parse();
  } catch {
    throw new InvalidInputError(message);
  }
}

function parseBoolean(name: string, value: string | null): boolean {
  if (value === null || value === '') return false;
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw new InvalidInputError(`${name} must be true or false`);
}
