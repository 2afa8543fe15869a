import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWatchedAddresses,
  addWatchedTokens,
  listWatchedAddresses,
  listWatchedTokens,
  removeWatchedAddresses,
  removeWatchedTokens,
} from '../../src/db/index.ts';
import { InvalidInputError } from '../../src/errors.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { SUI, USDC } from './job-helpers.ts';

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const SUI_ADDRESS = `0x${'ab'.repeat(32)}`;

describe('watchlist', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('adds coin types in their normal form, counting the ones already watched', async () => {
    await expect(addWatchedTokens(database, ['0x2::sui::SUI', USDC, SUI])).resolves.toEqual({ added: 2, existing: 0 });
    await expect(addWatchedTokens(database, [SUI, '0x6::clock::Clock'])).resolves.toEqual({ added: 1, existing: 1 });
    expect(await listWatchedTokens(database)).toEqual([SUI, `0x${'0'.repeat(63)}6::clock::Clock`, USDC].sort());
  });

  it('writes nothing when one input is invalid, and names every bad one', async () => {
    const failure = addWatchedTokens(database, ['0x7::ok::OK', 'nope', '0x1::a::B<0x2::b::C,0x3::c::D>']);
    await expect(failure).rejects.toThrow(InvalidInputError);
    await expect(failure).rejects.toThrow(/"nope".*comma/);
    expect(await listWatchedTokens(database)).toHaveLength(3);
    await expect(addWatchedAddresses(database, [SUI_ADDRESS, 'bad'], {})).rejects.toThrow(InvalidInputError);
    await expect(addWatchedAddresses(database, [SUI_ADDRESS], { nftChain: 'MARS' })).rejects.toThrow(
      /unknown NFT chain/,
    );
    await expect(addWatchedAddresses(database, [SUI_ADDRESS], { protocols: ['ok', 'not,ok'] })).rejects.toThrow(
      /protocol/,
    );
    expect(await listWatchedAddresses(database)).toEqual([]);
  });

  it('removes coin types whatever their spelling', async () => {
    await expect(removeWatchedTokens(database, ['0x2::sui::SUI', '0x9::gone::GONE'])).resolves.toBe(1);
    expect(await listWatchedTokens(database)).not.toContain(SUI);
  });

  it('adds addresses with options, and updates only the options given', async () => {
    await expect(
      addWatchedAddresses(database, [EVM, SUI_ADDRESS], {
        chain: 'eth',
        protocols: ['aave', 'aave'],
        nftChain: 'eth',
        includePnl: true,
      }),
    ).resolves.toEqual({ added: 2, updated: 0 });
    await expect(addWatchedAddresses(database, [EVM], { includePnl: true })).resolves.toEqual({ added: 0, updated: 0 });
    await expect(
      addWatchedAddresses(database, [EVM.toLowerCase()], { nftChain: 'ALL', protocols: [] }),
    ).resolves.toEqual({ added: 0, updated: 1 });
    const listed = await listWatchedAddresses(database);
    expect(listed.map(({ addedAt: _, ...rest }) => rest)).toEqual([
      { address: EVM.toLowerCase(), chain: 'eth', protocols: null, nftChain: 'ALL', includePnl: true },
      { address: SUI_ADDRESS, chain: 'eth', protocols: ['aave'], nftChain: 'ETH', includePnl: true },
    ]);
    expect(listed[0]!.addedAt).toBeInstanceOf(Date);
  });

  it('gives new addresses the defaults', async () => {
    const other = `0x${'cd'.repeat(32)}`;
    await addWatchedAddresses(database, [other], {});
    const [row] = (await listWatchedAddresses(database)).filter((a) => a.address === other);
    expect(row).toMatchObject({ chain: null, protocols: null, nftChain: 'ALL', includePnl: false });
    await expect(removeWatchedAddresses(database, [other, EVM])).resolves.toBe(2);
  });
});
