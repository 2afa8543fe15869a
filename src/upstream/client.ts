import { isLoopback } from '../config/loopback.ts';
import { requireApiKey, requireUpstreamBaseUrl, type Options } from '../config/options.ts';
import { InvalidInputError } from '../errors.ts';
import { normalizeAddress, parseChainFilter, parseNftChain } from '../chain/address.ts';
import type { NftChain } from '../chain/address-formats.ts';
import { normalizeCoinType } from '../chain/coin-type.ts';
import type { z } from 'zod';
import type { Dataset, UpstreamOperation } from '../datasets.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { createUpstreamHttp, type UpstreamResponse } from './http-client.ts';
import type { TransportSettings, UpstreamTransport } from './transport.ts';
import { MAX_COINS_PER_PRICE_REQUEST } from './limits.ts';
import { createAnswerBudget } from './answer-budget.ts';
import { answerBudgetBytes } from '../config/memory-budget.ts';
import {
  nftHoldingsResponse,
  positionsResponse,
  protocolsResponse,
  tokenPriceResponse,
  type NftHoldingsResponse,
  type PositionsResponse,
  type ProtocolsResponse,
  type TokenPriceResponse,
} from './schemas.ts';

export type { UpstreamResponse };

export interface PriceRequestOptions {
  /** Ask for the price at this time; omitted: the current price. */
  at?: Date;
  signal?: AbortSignal;
}

export interface PositionsRequestOptions {
  chain?: string;
  protocols?: string[];
  forceRefresh?: boolean;
  signal?: AbortSignal;
}

export interface NftHoldingsRequestOptions {
  chain?: NftChain;
  includePnl?: boolean;
  signal?: AbortSignal;
}

/**
 * The upstream's operations (upstream-api.md section 4), validated against the wire schemas. Input
 * is checked before any request (InvalidInputError); failures are the classes of errors.ts.
 */
export interface UpstreamClient {
  /** One price request for 1 to 50 coin types (any spelling; sent in normal form, duplicates once). */
  fetchTokenPriceBatch(coinTypes: string[], opts?: PriceRequestOptions): Promise<UpstreamResponse<TokenPriceResponse>>;
  fetchPositions(address: string, opts?: PositionsRequestOptions): Promise<UpstreamResponse<PositionsResponse>>;
  fetchNftHoldings(address: string, opts?: NftHoldingsRequestOptions): Promise<UpstreamResponse<NftHoldingsResponse>>;
  fetchProtocols(opts?: { signal?: AbortSignal }): Promise<UpstreamResponse<ProtocolsResponse>>;
  /** Closes the keep-alive connections. */
  close(): Promise<void>;
}

export interface UpstreamClientSettings {
  /** Among them DATASET_PRIORITY, the order in which requests waiting for the rate limit go. */
  options: Options;
  logger: Logger;
  metrics: Metrics;
  /** How requests go out: the HTTP transport on the shared rate limiter (src/cli/resources.ts), or a test's. */
  transport: UpstreamTransport;
}

export function createUpstreamClient(settings: UpstreamClientSettings): UpstreamClient {
  const { options } = settings;
  warnOnPlainHttp(requireUpstreamBaseUrl(options), settings.logger);
  const http = createUpstreamHttp(settings);
  // A request's place among those waiting for the rate limit (lower first): its dataset's rank in
  // DATASET_PRIORITY, the protocol list with the first, prices at a past time after every dataset.
  const rank = (dataset: Dataset) => options.DATASET_PRIORITY.indexOf(dataset);
  const get = <T>(
    operation: UpstreamOperation,
    path: string,
    schema: z.ZodType<T>,
    priority: number,
    signal?: AbortSignal,
  ) => http.send({ operation, method: 'GET', path, schema, priority, signal });

  return {
    async fetchTokenPriceBatch(coinTypes, opts = {}) {
      // Normal forms, first occurrence first; InvalidInputError on the first bad coin type.
      const batch = [...new Set(coinTypes.map(normalizeCoinType))];
      if (batch.length === 0 || batch.length > MAX_COINS_PER_PRICE_REQUEST) {
        throw new InvalidInputError(
          `a price request takes 1 to ${MAX_COINS_PER_PRICE_REQUEST} distinct coin types, got ${batch.length}`,
        );
      }
      const timestamp = opts.at === undefined ? undefined : requestTimestamp(opts.at, options.UPSTREAM_TIMESTAMP_UNIT);
      return http.send({
        operation: 'prices',
        method: 'POST',
        path: '/tokens/sui/price',
        json: { addresses: batch.join(','), ...(timestamp === undefined ? {} : { timestamp }) },
        schema: tokenPriceResponse,
        priority: timestamp === undefined ? rank('prices') : options.DATASET_PRIORITY.length,
        signal: opts.signal,
      });
    },

    async fetchPositions(address, opts = {}) {
      const query: string[] = [];
      if (opts.chain !== undefined) query.push(`chain=${encodeURIComponent(parseChainFilter(opts.chain))}`);
      if (opts.protocols?.length)
        query.push(`protocol=${opts.protocols.map(protocolName).map(encodeURIComponent).join(',')}`);
      if (opts.forceRefresh) query.push('force_refresh=true');
      const path = addressPath(address, 'positions', query);
      return get('positions', path, positionsResponse, rank('positions'), opts.signal);
    },

    async fetchNftHoldings(address, opts = {}) {
      const query: string[] = [];
      if (opts.chain !== undefined) query.push(`chain=${encodeURIComponent(parseNftChain(opts.chain))}`);
      if (opts.includePnl) query.push('includePnl=true');
      return get('nfts', addressPath(address, 'nft-holding', query), nftHoldingsResponse, rank('nfts'), opts.signal);
    },

    fetchProtocols: (opts = {}) => get('protocols', '/v2/defi/protocols', protocolsResponse, 0, opts.signal),

    close: () => http.close(),
  };
}

/** A transport's settings, with an answer budget of its own (ConfigError when the upstream's URL or key is not set). */
export function transportSettings(options: Options): TransportSettings {
  return {
    baseUrl: requireUpstreamBaseUrl(options),
    apiKey: requireApiKey(options),
    timeoutMs: options.UPSTREAM_TIMEOUT_MS,
    maxBodyBytes: options.UPSTREAM_MAX_BODY_BYTES,
    maxElements: options.UPSTREAM_MAX_ELEMENTS,
    answerBudget: createAnswerBudget(answerBudgetBytes(options)),
  };
}

/** Warns, as the client opens, when the API key would cross a network unencrypted (http: to another host). */
function warnOnPlainHttp(baseUrl: string, logger: Logger): void {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:' || isLoopback(url.hostname)) return;
  logger.warn(
    { component: 'upstream', host: url.host },
    'UPSTREAM_BASE_URL is plain http: to a host that is not this machine: the API key and the answers cross the network unencrypted; use https:',
  );
}

/** The price request's `timestamp` field in the configured unit (the upstream does not document it). */
function requestTimestamp(at: Date, unit: Options['UPSTREAM_TIMESTAMP_UNIT']): number {
  const ms = at.getTime();
  if (Number.isNaN(ms)) throw new InvalidInputError('invalid price time: not a valid date');
  return unit === 'seconds' ? Math.floor(ms / 1000) : ms;
}

/** The upstream takes protocols comma-separated, so a name may not contain one. */
function protocolName(input: string): string {
  const name = input.trim();
  if (!name || name.includes(','))
    throw new InvalidInputError(`invalid protocol "${input}": expected a protocol id without commas`);
  return name;
}

function addressPath(address: string, endpoint: string, query: string[]): string {
  const path = `/v2/address/${encodeURIComponent(normalizeAddress(address))}/${endpoint}`;
  return query.length ? `${path}?${query.join('&')}` : path;
}
