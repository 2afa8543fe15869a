import { normalizeAddress, parseNftChain } from '../chain/address.ts';
import type { NftChain } from '../chain/address-formats.ts';
import { normalizeCoinType } from '../chain/coin-type.ts';
import type { Context } from '../runtime/context.ts';
import { createDatabase, listWatchedAddresses, listWatchedTokens } from '../db/index.ts';
import type { ElementOutcome } from '../db/schema/rows.ts';
import { InvalidInputError } from '../errors.ts';
import {
  normalizeNftHoldings,
  normalizePositions,
  normalizeProtocols,
  normalizeTokenPrices,
} from '../normalize/index.ts';
import { priceWindow } from '../normalize/price-plausibility.ts';
import { withShutdown, type Shutdown } from '../runtime/shutdown.ts';
import type { UpstreamClient, UpstreamResponse } from '../upstream/client.ts';
import { MAX_COINS_PER_PRICE_REQUEST } from '../upstream/limits.ts';
import { AuthError, InvalidPayloadError, UpstreamError } from '../upstream/errors.ts';
import { jobOutcome } from '../worker/job-outcome.ts';
import type { UpstreamOperation } from '../datasets.ts';
import { formatProbeReport, probeFindsProblems, type OperationProbe } from './probe-report.ts';
import { openUpstreamClient } from './resources.ts';
import { createCliContext } from './runtime.ts';
import { EXIT } from './exit-codes.ts';

export interface ProbeFlags {
  address?: string[];
  tokens?: string[];
  json?: boolean;
}

interface ProbeTargets {
  coinTypes: string[];
  /** With the request options the live jobs would use for each. */
  addresses: { address: string; chain?: string; protocols?: string[]; nftChain: NftChain; includePnl: boolean }[];
}

/** `chaintap probe`: each upstream operation called once and read as the worker would read it. */
export async function runProbe(flags: ProbeFlags): Promise<void> {
  const context = createCliContext();
  let probes: OperationProbe[];
  try {
    probes = await withShutdown(context.logger, async (shutdown) => {
      const targets = await probeTargets(context, shutdown, flags);
      const client = openUpstreamClient(context, shutdown);
      return probeAll(client, targets, context.signal);
    });
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    console.error(`error: ${error.message}`);
    process.exitCode = EXIT.authRejected;
    return;
  }
  console.log(
    flags.json ? JSON.stringify({ ready: !probeFindsProblems(probes), probes }, null, 2) : formatProbeReport(probes),
  );
  process.exitCode = probeFindsProblems(probes) ? EXIT.failed : EXIT.ok;
}

/**
 * The given tokens and addresses, checked before any request; what is not given comes from the
 * watchlist. Postgres is opened only then, so that a probe with both runs without a database.
 */
async function probeTargets(context: Context, shutdown: Shutdown, flags: ProbeFlags): Promise<ProbeTargets> {
  let coinTypes = flags.tokens && [...new Set(flags.tokens.map(normalizeCoinType))];
  if (coinTypes && coinTypes.length > MAX_COINS_PER_PRICE_REQUEST) {
    throw new InvalidInputError(
      `--tokens takes at most ${MAX_COINS_PER_PRICE_REQUEST} coin types (one price request), got ${coinTypes.length}`,
    );
  }
  let addresses: ProbeTargets['addresses'] | undefined = flags.address?.map((address) => ({
    address: normalizeAddress(address),
    // As for an address added to the watchlist without options.
    nftChain: parseNftChain('ALL'),
    includePnl: false,
  }));
  if (coinTypes && addresses) return { coinTypes, addresses };
  const database = createDatabase(context.options.DATABASE_URL, { max: 1 });
  shutdown.add('postgres', () => database.close());
  coinTypes ??= (await listWatchedTokens(database)).slice(0, MAX_COINS_PER_PRICE_REQUEST);
  addresses ??= (await listWatchedAddresses(database)).slice(0, 1).map((watched) => ({
    address: watched.address,
    ...(watched.chain ? { chain: watched.chain } : {}),
    ...(watched.protocols?.length ? { protocols: watched.protocols } : {}),
    nftChain: parseNftChain(watched.nftChain),
    includePnl: watched.includePnl,
  }));
  return { coinTypes, addresses };
}

/** One call per operation (positions and NFT holdings per address), one after the other. */
async function probeAll(client: UpstreamClient, targets: ProbeTargets, signal: AbortSignal): Promise<OperationProbe[]> {
  const { coinTypes, addresses } = targets;
  // The reading time stands in for the tick: nothing is stored, so it only dates the rows read.
  const now = new Date();
  const probes = [
    coinTypes.length === 0
      ? skipped('prices', 'no --tokens given and no token watched')
      : await probe(
          'prices',
          `(${coinTypes.length} token(s))`,
          () => client.fetchTokenPriceBatch(coinTypes, { signal }),
          (data) =>
            normalizeTokenPrices(data, {
              asked: coinTypes,
              window: priceWindow({ slot: now, fetchedAt: now }),
              fetchedAt: now,
            }),
        ),
  ];
  if (addresses.length === 0) {
    probes.push(skipped('positions', 'no --address given and no address watched'));
    probes.push(skipped('nfts', 'no --address given and no address watched'));
  }
  for (const { address, chain, protocols, nftChain, includePnl } of addresses) {
    const ctx = { owner: address, snapshotAt: now, fetchedAt: now };
    probes.push(
      await probe(
        'positions',
        address,
        () => client.fetchPositions(address, { chain, protocols, signal }),
        (data) => normalizePositions(data, ctx),
      ),
      await probe(
        'nfts',
        address,
        () => client.fetchNftHoldings(address, { chain: nftChain, includePnl, signal }),
        (data) => normalizeNftHoldings(data, ctx),
      ),
    );
  }
  probes.push(
    await probe(
      'protocols',
      '(all)',
      () => client.fetchProtocols({ signal }),
      // The protocol list is read whole: it has no per-element outcome.
      (data) => ({ ...normalizeProtocols(data), elements: data.length, quarantined: [], drifts: [] }),
    ),
  );
  return probes;
}

/**
 * One call, read and classified as the worker would (job-outcome.ts): a rejected key ends the probe,
 * other upstream failures are reported; anything else (a bug, a shutdown) propagates.
 */
async function probe<T>(
  operation: UpstreamOperation,
  target: string,
  fetch: () => Promise<UpstreamResponse<T>>,
  read: (data: T) => ElementOutcome,
): Promise<OperationProbe> {
  const result = (status: OperationProbe['status'], found: Partial<OperationProbe>): OperationProbe => ({
    operation,
    target,
    status,
    elements: null,
    drifts: [],
    quarantined: [],
    note: null,
    ...found,
  });
  let response: UpstreamResponse<T> | undefined;
  try {
    response = await fetch();
    const { elements, drifts, quarantined } = read(response.data);
    return result('read', {
      elements,
      drifts,
      quarantined: quarantined.map(({ index, reason }) => ({ index, reason })),
    });
  } catch (error) {
    if (error instanceof UpstreamError) error.release();
    const decision = jobOutcome(error);
    if (decision === 'quarantine') {
      const reason =
        error instanceof InvalidPayloadError ? error.issues.split('\n').join('; ') : (error as Error).message;
      return result('unreadable', { quarantined: [{ index: null, reason }] });
    }
    if (decision === 'stop_and_alert' || !(error instanceof UpstreamError)) throw error;
    return result('failed', { note: `${error.message} (${error.attempts} attempt(s))` });
  } finally {
    response?.release();
  }
}

function skipped(operation: UpstreamOperation, note: string): OperationProbe {
  return { operation, target: '', status: 'skipped', elements: null, drifts: [], quarantined: [], note };
}
