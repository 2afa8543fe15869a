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
 * Answers the operations from the world functions. Built for each request: on one core the
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

  answer(
    operation: Operation,
    address: string | undefined,
    query: URLSearchParams,
    rawBody: string,
    worldTimeMs: number,
  ): Answer {
    try {
      return { status: 200, body: this.body(operation, address ?? '', query, rawBody, worldTimeMs) };
    } catch (error) {
      if (error instanceof InvalidInputError)
        return errorAnswer(400, 'bad_request', error.message, this.world.realShapes);
      throw error;
    }
  }

  private body(
    operation: Operation,
    rawAddress: string,
    query: URLSearchParams,
    rawBody: string,
    worldTimeMs: number,
  ): string {
    switch (operation) {
      case 'protocols':
        return JSON.stringify(simulatedProtocolsResponse());
      case 'prices':
        return JSON.stringify(
          simulatedPriceResponse(parseJson(rawBody), worldTimeMs, this.seed, this.world.realShapes),
        );
      case 'positions': {
        const address = decodePathSegment(rawAddress);
        const chain = query.get('chain') || undefined;
        const protocol = query.get('protocol') || undefined;
        parseBoolean('force_refresh', query.get('force_refresh'));
        const protocols = protocol
          ?.split(',')
          .map((id) => id.trim())
          .filter((id) => id !== '');
        const data = simulatedPositions(address, worldTimeMs, this.seed, this.world, { chain, protocols });
        return JSON.stringify({ data });
      }
      case 'nfts': {
        const address = decodePathSegment(rawAddress);
        const chain = query.get('chain') || undefined;
        const includePnl = parseBoolean('includePnl', query.get('includePnl'));
        return JSON.stringify(simulatedNftAnswer(address, worldTimeMs, this.seed, this.world, { chain, includePnl }));
      }
    }
  }
}

function parseJson(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody);
  } catch {
    throw new InvalidInputError('the body is not valid JSON');
  }
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidInputError('the address in the path is not valid percent-encoding');
  }
}

function parseBoolean(name: string, value: string | null): boolean {
  if (value === null || value === '') return false;
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw new InvalidInputError(`${name} must be true or false`);
}
