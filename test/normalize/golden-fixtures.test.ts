import { describe, expect, it } from 'vitest';
import { fixtureCases, normalizeFixture, readFixture } from './fixture-cases.ts';

describe('normalizers on golden fixtures', () => {
  const cases = fixtureCases();

  it('covers the nine position variants and the odd payloads', () => {
    expect(cases.filter((name) => name.startsWith('positions-')).length).toBeGreaterThanOrEqual(9);
    expect(cases.filter((name) => name.startsWith('prices-')).length).toBeGreaterThanOrEqual(4);
    expect(cases.filter((name) => name.startsWith('nfts-')).length).toBeGreaterThanOrEqual(2);
  });

  it.each(cases)('%s gives the expected rows', (name) => {
    expect(normalizeFixture(name)).toEqual(readFixture(name, 'expected.json'));
  });
});
