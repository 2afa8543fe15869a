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
export type OperationRoute = Extract<Route, { kind: 'operation' }>;

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

export interface Answer {
  status: number;
  body: string;
}

/** `{ error: code, message }`; real answers carry only an `error` string, the message. */
export function errorAnswer(status: number, error: string, message: string, realShapes = false): Answer {
  return { status, body: JSON.stringify(realShapes ? { error: message } : { error, message }) };
}

/**
 * Answers the operations from the world functions, anew for each request: on one core the
 * simulator answers about 1,000 new positions requests a second and 2,500 price requests of 50
 * tokens (bench/tools/simulator-throughput.ts), ten times the fastest quota chaintap paces for.
 */
export class WorldAnswers {
  private readonly seed: string;
  private readonly world: SimulatorWorld;

  constructor(seed: string, world: SimulatorWorld) {
    this.seed = seed;
    this.world = world;
  }

  answer(route: OperationRoute, query: URLSearchParams, rawBody: string, worldTimeMs: number): Answer {
    try {
      const { operation, address = '' } = route;
      return { status: 200, body: JSON.stringify(this.body(operation, address, query, rawBody, worldTimeMs)) };
    } catch (error) {
      if (error instanceof InvalidInputError)
        return errorAnswer(400, 'bad_request', error.message, this.world.realShapes);
      throw error;
    }
  }

  private body(operation: Operation, rawAddress: string, query: URLSearchParams, rawBody: string, worldTimeMs: number) {
    const { seed, world } = this;
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
