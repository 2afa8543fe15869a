import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  normalizeNftHoldings,
  normalizePositions,
  normalizeProtocols,
  normalizeTokenPrices,
} from '../../src/normalize/index.ts';
import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import { priceWindow } from '../../src/normalize/price-plausibility.ts';
import {
  nftHoldingsResponse,
  positionsResponse,
  protocolsResponse,
  tokenPriceResponse,
} from '../../src/upstream/schemas.ts';

/**
 * Golden fixtures: test/fixtures/normalize/<case>/response.json (an upstream body) and expected.json
 * (the rows, as JSON). The case name's prefix says which operation answered.
 */
export const FIXTURES = fileURLToPath(new URL('../fixtures/normalize', import.meta.url));

export const FIXTURE_CONTEXT = {
  owner: '0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1',
  snapshotAt: new Date('2026-11-21T12:00:00.000Z'),
  fetchedAt: new Date('2026-11-21T12:00:05.250Z'),
};

/** A price fixture's request: the coin types of its `asked.json` when it has one, else every coin type its entries name. */
function askedIn(name: string, body: unknown): string[] {
  const file = join(FIXTURES, name, 'asked.json');
  if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as string[]).map(normalizeCoinType);
  const entries = (body as { data?: unknown[] }).data ?? [];
  return entries.flatMap((entry) => {
    const address = (entry as { contract_address?: unknown } | null)?.contract_address;
    if (typeof address !== 'string') return [];
    try {
      return [normalizeCoinType(address)];
    } catch {
      return [];
    }
  });
}

export function fixtureCases(): string[] {
  return readdirSync(FIXTURES).sort();
}

export function readFixture(name: string, file: 'response.json' | 'expected.json'): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, name, file), 'utf8'));
}

/**
 * Validates the body with the wire schema and normalizes it; the result as plain JSON. What the
 * normalizer reports besides rows (quarantined elements, drifts) is listed only when there is some,
 * and the element count is left out, so a fixture's expected.json names only what it is about.
 */
export function normalizeFixture(name: string): unknown {
  const body = readFixture(name, 'response.json');
  const { owner, snapshotAt, fetchedAt } = FIXTURE_CONTEXT;
  const kind = name.split('-')[0];
  const rows = (() => {
    switch (kind) {
      case 'prices':
        return normalizeTokenPrices(tokenPriceResponse.parse(body), {
          asked: askedIn(name, body),
          window: priceWindow({ slot: snapshotAt, fetchedAt }),
          fetchedAt,
        });
      case 'positions':
        return normalizePositions(positionsResponse.parse(body), { owner, snapshotAt, fetchedAt });
      case 'nfts':
        return normalizeNftHoldings(nftHoldingsResponse.parse(body), { owner, snapshotAt, fetchedAt });
      case 'protocols':
        return normalizeProtocols(protocolsResponse.parse(body));
      default:
        throw new Error(
          `fixture ${name}: unknown kind "${kind}" (prefix with prices-, positions-, nfts- or protocols-)`,
        );
    }
  })();
  if (Array.isArray(rows)) return JSON.parse(JSON.stringify(rows));
  const { elements: _elements, quarantined, drifts, ...tables } = rows;
  // Harvested prices too are listed only when there are some.
  const { harvested, ...rest } = tables as typeof tables & { harvested?: { prices: unknown[] } };
  return JSON.parse(
    JSON.stringify({
      ...rest,
      ...(harvested?.prices.length ? { harvested } : {}),
      ...(quarantined?.length ? { quarantined } : {}),
      ...(drifts?.length ? { drifts } : {}),
    }),
  );
}
