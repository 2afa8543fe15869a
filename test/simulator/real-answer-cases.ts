import { errorAnswer } from '../../src/simulator/routes.ts';
import {
  simulatedNftAnswer,
  simulatedPositions,
  simulatedPriceResponse,
  type Json,
  type JsonObject,
} from '../../src/simulator/index.ts';

/**
 * The sample bodies of test/fixtures/real-answers/: each is what the real-shapes simulator answers
 * (for a fixed seed, time and address), cut down to the elements that show its case.
 */
const T = Date.parse('2026-03-01T12:34:56Z');
const REAL = { realShapes: true };
const ADDRESS = `0x${'1'.padStart(64, '0')}`;
const positions = simulatedPositions(ADDRESS, T, undefined, REAL);
const ofType = (...types: string[]) => positions.filter((position) => types.includes(String(position.type)));
const addressWhere = (wrapped: boolean) => {
  for (let i = 1; ; i++) {
    const address = `0x${i.toString(16).padStart(64, '0')}`;
    if (!Array.isArray(simulatedNftAnswer(address, T, undefined, REAL)) === wrapped) return address;
  }
};
const nfts = (address: string) =>
  simulatedNftAnswer(address, T, undefined, { ...REAL, collectionsPerAddress: 6 }, { includePnl: true });
const PRICE_TOKENS = [
  '0x2::sui::SUI',
  ...Array.from({ length: 20 }, (_, i) => `0x${(i + 1000).toString(16)}::token${i}::T${i}`),
];

export const REAL_ANSWER_CASES: Record<string, () => Json> = {
  'positions-all-types.json': () => ({ data: positions }),
  'positions-duplicate-ids.json': () => {
    const [first] = ofType('CLMM');
    return { data: positions.filter((position) => position.positionId === first!.positionId) };
  },
  'positions-nested-borrow.json': () => ({ data: ofType('Borrow') }),
  'positions-numeric-shapes.json': () => ({ data: ['AMM', 'CLMM', 'CFMM'].map((type) => ofType(type)[0]!) }),
  'positions-extra-and-missing-fields.json': () => ({ data: ofType('Lending', 'Borrow', 'Staking', 'Reward') }),
  'nfts-data-wrapped.json': () => nfts(addressWhere(true)),
  'nfts-bare-array.json': () => nfts(addressWhere(false)),
  'prices-missing-fields.json': () =>
    simulatedPriceResponse({ addresses: PRICE_TOKENS.join(',') }, T, undefined, true) as unknown as JsonObject,
  'error-403.json': () => JSON.parse(errorAnswer(403, 'forbidden', 'Forbidden', true).body) as Json,
  'error-429.json': () =>
    JSON.parse(errorAnswer(429, 'too_many_requests', 'rate limit exceeded, retry later', true).body) as Json,
};
