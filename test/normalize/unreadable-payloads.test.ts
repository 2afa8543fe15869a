import { describe, expect, it } from 'vitest';
import {
  normalizeNftHoldings,
  normalizeProtocols,
  normalizeTokenPrices,
  UnreadablePayloadError,
} from '../../src/normalize/index.ts';
import { nftHoldingsResponse, protocolsResponse, tokenPriceResponse } from '../../src/upstream/schemas.ts';
import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import { priceWindow } from '../../src/normalize/price-plausibility.ts';

const fetchedAt = new Date('2026-11-21T12:00:05Z');
const SUI = normalizeCoinType('0x2::sui::SUI');
const entry = {
  contract_address: '0x2::sui::SUI',
  symbol: 'SUI',
  price: 3.2,
  last24hPrice: 3.1,
  timestamp: 1795262400,
  decimals: 9,
  source: 'pyth',
};

function prices(data: unknown[]) {
  const window = priceWindow({ slot: new Date('2026-11-21T12:00:00Z'), fetchedAt });
  return normalizeTokenPrices(tokenPriceResponse.parse({ data }), { asked: [SUI], window, fetchedAt });
}

/** Normalizes [a readable entry, `bad`]: the readable one is stored, `bad` alone is quarantined. */
function quarantinedBeside(bad: unknown) {
  const rows = prices([entry, bad]);
  expect(rows.prices).toHaveLength(1);
  expect(rows.quarantined).toHaveLength(1);
  expect(rows.quarantined[0]).toMatchObject({ index: 1, element: bad });
  return rows.quarantined[0]!.reason;
}

describe('elements that validate but cannot be rows are quarantined alone', () => {
  it('a price whose timestamp is nonsense', () => {
    expect(quarantinedBeside({ ...entry, timestamp: 17 })).toMatch(/timestamp 17 is .*not a plausible price time/);
  });

  it('a price time far after the fetch', () => {
    expect(quarantinedBeside({ ...entry, timestamp: 1795262400 + 3 * 86400 })).toMatch(
      /is after 2026-11-21T12:05:05.000Z \(5 min past the fetch/,
    );
  });

  it('a contract_address that is not a coin type', () => {
    expect(quarantinedBeside({ ...entry, contract_address: 'SUI' })).toMatch(/^contract_address: /);
  });

  it('a price that is not a number', () => {
    expect(quarantinedBeside({ ...entry, price: { usd: 3 } })).toMatch(/price of .* is not a number/);
  });

  it('a huge value: its reason quotes its start and its length, never the whole of it', () => {
    const digits = `1${'2'.repeat(4999)}`;
    for (const [bad, quoted] of [
      [{ ...entry, price: digits }, `${digits.slice(0, 64)}… (5000 characters)`],
      [{ ...entry, price: `-${digits}` }, `-${digits.slice(0, 63)}… (5001 characters)`],
      [{ ...entry, price: 'x'.repeat(5000) }, `${'x'.repeat(64)}… (5000 characters)`],
      [{ ...entry, timestamp: digits }, `${digits.slice(0, 64)}… (5000 characters)`],
    ] as const) {
      const reason = quarantinedBeside(bad);
      expect(reason).toContain(quoted);
      expect(reason.length).toBeLessThan(300);
    }
  });

  it('a collection whose totalItems is not an integer is drift, not a quarantine: null, kept in extra', () => {
    const body = [{ collectionId: 'c', collection: { totalItems: 'many' }, tokens: [] }];
    const rows = normalizeNftHoldings(nftHoldingsResponse.parse(body), {
      owner: '0xabc',
      snapshotAt: fetchedAt,
      fetchedAt,
    });
    expect(rows.quarantined).toEqual([]);
    expect(rows.collections[0]).toMatchObject({ totalItems: null, extra: { totalItems: 'many' } });
    expect(rows.drifts).toEqual([{ field: 'nfts.collection.totalItems', shape: 'string', count: 1 }]);
  });

  it('rejects a protocol entry without an id', () => {
    expect(() => normalizeProtocols(protocolsResponse.parse([{ logo: 'x' }]))).toThrow(UnreadablePayloadError);
  });

  it('reads a null price with a placeholder timestamp as missing, not as a failure', () => {
    const rows = prices([{ ...entry, price: null, timestamp: 0 }]);
    expect(rows.prices).toEqual([]);
    expect(rows.missing).toEqual([`0x${'0'.repeat(63)}2::sui::SUI`]);
    expect(rows.tokens[0]!.firstSeenAt).toEqual(fetchedAt);
  });
});
