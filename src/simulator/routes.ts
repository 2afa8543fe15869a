import { InvalidInputError } from '../errors.ts';
import { BoundedCache } from './bounded-cache.ts';
import { simulatedNftAnswer } from './nft-holdings.ts';
import { simulatedPositions } from './positions.ts';
import { priceGridTime } from './price-model.ts';
import { simulatedProtocolsResponse } from './protocols.ts';
import type { Operation } from './stats.ts';
import { simulatedPriceResponse } from './token-prices.ts';
import { valuationTime, type SimulatorWorld } from './world.ts';

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
 * Answers the operations from the world functions, caching serialized bodies: the world is constant
 * within a valuation step (positions, NFTs) or a price-grid minute (prices), so repeated requests are cheap.
 */
export class WorldAnswers {
  // About 16 MB: keys and bodies are ASCII, one byte per character in V8.
  private readonly cache = new BoundedCache(16_000_000);

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
        return this.cached('protocols', () => JSON.stringify(simulatedProtocolsResponse()));
      case 'prices':
        return this.cached(`prices\u0000${priceGridTime(worldTimeMs)}\u0000${rawBody}`, () =>
          JSON.stringify(simulatedPriceResponse(parseJson(rawBody), worldTimeMs, this.seed, this.world.realShapes)),
        );
      case 'positions': {
        const address = decodePathSegment(rawAddress);
        const chain = query.get('chain') || undefined;
        const protocol = query.get('protocol') || undefined;
        parseBoolean('force_refresh', query.get('force_refresh'));
        const key = `positions\u0000${valuationTime(worldTimeMs, this.world)}\u0000${address}\u0000${chain}\u0000${protocol}`;
        return this.cached(key, () => {
          const protocols = protocol
            ?.split(',')
            .map((id) => id.trim())
            .filter((id) => id !== '');
          const data = simulatedPositions(address, worldTimeMs, this.seed, this.world, { chain, protocols });
          return JSON.stringify({ data });
        });
      }
      case 'nfts': {
        const address = decodePathSegment(rawAddress);
        const chain = query.get('chain') || undefined;
        const includePnl = parseBoolean('includePnl', query.get('includePnl'));
        const key = `nfts\u0000${valuationTime(worldTimeMs, this.world)}\u0000${address}\u0000${chain}\u0000${includePnl}`;
        return this.cached(key, () =>
          JSON.stringify(simulatedNftAnswer(address, worldTimeMs, this.seed, this.world, { chain, includePnl })),
        );
      }
    }
  }

  private cached(key: string, build: () => string): string {
    const known = this.cache.get(key);
    if (known !== undefined) return known;
    const body = build();
    this.cache.set(key, body);
    return body;
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
