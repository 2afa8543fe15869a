import { describe, expect, it } from 'vitest';
import { simulatedNftHoldings, simulatedPositions, type JsonObject } from '../../src/simulator/index.ts';
import { positionsResponse, nftHoldingsResponse } from '../../src/upstream/schemas.ts';

/** What the simulated upstream holds for a wallet of each address format (issue 23). */
const T = Date.parse('2026-03-01T12:34:56Z');
const EVM = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';
const SOLANA = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const BITCOIN = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const TON = 'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q2';
const REAL = { realShapes: true };
const chains = (list: JsonObject[]) => [...new Set(list.map((entry) => String(entry.chain)))].sort();
const nftChains = (list: JsonObject[]) =>
  [...new Set(list.map((group) => String((group.collection as JsonObject).chain)))].sort();

describe('the simulated upstream, by wallet format', () => {
  it('an EVM wallet: positions on ethereum and arbitrum, NFTs on ETH and BASE', () => {
    const positions = simulatedPositions(EVM, T);
    expect(positions.length).toBeGreaterThan(3);
    expect(chains(positions)).toEqual(['arbitrum', 'ethereum']);
    expect(nftChains(simulatedNftHoldings(EVM, T, undefined, { collectionsPerAddress: 8 }))).toEqual(['BASE', 'ETH']);
    // The chain filter, by either name; a chain the wallet has nothing on: an empty list.
    expect(chains(simulatedPositions(EVM, T, undefined, {}, { chain: 'eth' }))).toEqual(['ethereum']);
    expect(simulatedPositions(EVM, T, undefined, {}, { chain: 'sui' })).toEqual([]);
    expect(simulatedNftHoldings(EVM, T, undefined, {}, { chain: 'SOL' })).toEqual([]);
  });

  it('an EVM wallet in real shapes: real types on ETH or ARB, a Borrow with its collateral nested', () => {
    const positions = simulatedPositions(EVM, T, undefined, { ...REAL, positionsPerAddress: 14 });
    expect(positionsResponse.safeParse({ data: positions }).success).toBe(true);
    expect(chains(positions).every((chain) => ['ARB', 'ETH'].includes(chain))).toBe(true);
    const borrow = positions.find((position) => position.type === 'Borrow')!;
    expect(borrow).toBeDefined();
    expect((borrow.input as JsonObject[])[0]).toMatchObject({ type: 'Lending', chain: borrow.chain });
    expect((borrow.current as JsonObject).healthy).toMatch(/^\d+(\.\d+)?$/);
  });

  it('a Solana wallet: no positions, NFTs on SOL, floor in SOL and marketPrice the same SOL price', () => {
    expect(simulatedPositions(SOLANA, T)).toEqual([]);
    const groups = simulatedNftHoldings(SOLANA, T, undefined, { collectionsPerAddress: 6 });
    expect(groups).toHaveLength(6);
    expect(nftChains(groups)).toEqual(['SOL']);
    expect(new Set(groups.map((group) => (group.nativeToken as JsonObject).symbol))).toEqual(new Set(['SOL']));
    expect(new Set(groups.map((group) => group.marketPrice)).size).toBe(1);
    expect(simulatedNftHoldings(SOLANA, T, undefined, {}, { chain: 'ETH' })).toEqual([]);
    expect(nftHoldingsResponse.safeParse(simulatedNftHoldings(SOLANA, T, undefined, REAL)).success).toBe(true);
  });

  it('a Bitcoin wallet holds one ordinals collection, a TON wallet nothing', () => {
    expect(simulatedPositions(BITCOIN, T)).toEqual([]);
    const ordinals = simulatedNftHoldings(BITCOIN, T);
    expect(nftChains(ordinals)).toEqual(['BTC']);
    expect(ordinals).toHaveLength(1);
    expect(simulatedPositions(TON, T, undefined, REAL)).toEqual([]);
    expect(simulatedNftHoldings(TON, T, undefined, REAL)).toEqual([]);
  });
});
