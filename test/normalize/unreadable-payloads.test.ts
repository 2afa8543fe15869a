import { describe, expect, it } from 'vitest';
import { normalizeNftHoldings, normalizeProtocols, normalizeTokenPrices, UnreadablePayloadError } from '../../src/normalize/index.js';
import { nftHoldingsResponse, protocolsResponse, tokenPriceResponse } from '../../src/upstream/schemas.js';

const fetchedAt = new Date('2026-11-21T12:00:05Z');
const entry = { contract_address: '0x2::sui::SUI', symbol: 'SUI', price: 3.2, last24hPrice: 3.1, timestamp: 1795262400, decimals: 9, source: 'pyth' };

function prices(data: unknown[]) {
  return normalizeTokenPrices(tokenPriceResponse.parse({ data }), { fetchedAt });
}

describe('payloads that validate but cannot be rows', () => {
  it('rejects a price whose timestamp is nonsense', () => {
    expect(() => prices([{ ...entry, timestamp: 17 }])).toThrow(UnreadablePayloadError);
  });

  it('rejects a price time far after the fetch', () => {
    expect(() => prices([{ ...entry, timestamp: 1795262400 + 3 * 86400 }])).toThrow(/after the fetch/);
  });

  it('rejects a contract_address that is not a coin type', () => {
    expect(() => prices([{ ...entry, contract_address: 'SUI' }])).toThrow(UnreadablePayloadError);
  });

  it('rejects a collection whose totalItems is not an integer', () => {
    const body = [{ collectionId: 'c', collection: { totalItems: 'many' }, tokens: [] }];
    expect(() => normalizeNftHoldings(nftHoldingsResponse.parse(body), { owner: '0xabc', snapshotAt: fetchedAt })).toThrow(UnreadablePayloadError);
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
