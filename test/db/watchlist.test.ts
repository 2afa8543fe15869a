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
const SOLANA = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

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
      addWatchedAddresses(database, [EVM, `${EVM.toLowerCase()} `], {
        datasets: ['nfts', 'positions', 'nfts'],
        chain: 'ethereum',
        protocols: ['aave', 'aave'],
        nftChain: 'eth',
        includePnl: true,
      }),
    ).resolves.toEqual({ added: 1, updated: 0 });
    await expect(
      addWatchedAddresses(database, [SUI_ADDRESS], { datasets: ['positions'], maxAge: '6h', every: '15m' }),
    ).resolves.toEqual({ added: 1, updated: 0 });
    // A max age or cadence out of bounds, or not a duration: refused, nothing written.
    for (const maxAge of ['30s', '400d', 'often'])
      await expect(addWatchedAddresses(database, [SUI_ADDRESS], { maxAge })).rejects.toThrow(
        `invalid max-age "${maxAge}": expected a duration from 1m to 366d, such as 15m, 24h or 7d`,
      );
    await expect(addWatchedAddresses(database, [EVM], { includePnl: true })).resolves.toEqual({ added: 0, updated: 0 });
    await expect(
      addWatchedAddresses(database, [EVM.toLowerCase()], { nftChain: 'ALL', protocols: [], datasets: ['nfts'] }),
    ).resolves.toEqual({ added: 0, updated: 1 });
    const listed = await listWatchedAddresses(database);
    expect(listed.map(({ addedAt: _, ...rest }) => rest)).toEqual([
      {
        address: EVM.toLowerCase(),
        format: 'evm',
        datasets: ['nfts'],
        chain: 'ethereum',
        protocols: null,
        nftChain: 'ALL',
        includePnl: true,
        maxAgeSeconds: null,
        everySeconds: null,
      },
      {
        address: SUI_ADDRESS,
        format: 'sui',
        datasets: ['positions'],
        chain: null,
        protocols: null,
        nftChain: 'ALL',
        includePnl: false,
        maxAgeSeconds: 21_600,
        everySeconds: 900,
      },
    ]);
    // '' sets the default again.
    await addWatchedAddresses(database, [SUI_ADDRESS], { every: '' });
    expect((await listWatchedAddresses(database))[1]).toMatchObject({ maxAgeSeconds: 21_600, everySeconds: null });
    await addWatchedAddresses(database, [SUI_ADDRESS], { every: '15m' });
    expect(listed[0]!.addedAt).toBeInstanceOf(Date);
  });

  it('refuses an address on a chain of another format, naming both, and writes nothing', async () => {
    const before = await listWatchedAddresses(database);
    await expect(addWatchedAddresses(database, [SOLANA, EVM], { nftChain: 'ETH' })).rejects.toThrow(
      new InvalidInputError(
        `nothing written: address ${SOLANA} is a Solana address (base58 of 32 bytes), and NFT chain ETH takes an EVM address (0x and 40 hex digits): use --nft-chain SOL or ALL`,
      ),
    );
    await expect(addWatchedAddresses(database, [SUI_ADDRESS], { chain: 'arbitrum' })).rejects.toThrow(
      /is a SUI address \(0x and 64 hex digits\), and positions chain arbitrum takes an EVM address/,
    );
    await expect(addWatchedAddresses(database, [SUI_ADDRESS], { datasets: ['prices'] })).rejects.toThrow(
      /invalid datasets "prices": expected positions, nfts or both/,
    );
    expect(await listWatchedAddresses(database)).toEqual(before);
  });

  it('takes every format, each in its normal form, so that two spellings are one address', async () => {
    const bech32 = 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4';
    const tonRaw = '0:ed1691307050047117b998b561d8de82d31fbf84910ced6eb5fc92e7485ef8a7';
    const tonFriendly = 'UQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p9dz';
    await expect(
      addWatchedAddresses(
        database,
        [SOLANA, bech32, bech32.toLowerCase(), tonRaw, tonFriendly, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
        {
          nftChain: 'ALL',
        },
      ),
    ).resolves.toEqual({ added: 4, updated: 0 });
    const formats = Object.fromEntries((await listWatchedAddresses(database)).map((a) => [a.address, a.format]));
    expect(formats).toMatchObject({
      [SOLANA]: 'solana',
      [bech32.toLowerCase()]: 'bitcoin',
      'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q2': 'ton',
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa': 'bitcoin',
    });
    await expect(
      removeWatchedAddresses(database, [tonRaw, bech32, SOLANA, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa']),
    ).resolves.toBe(4);
  });

  it('gives new addresses the defaults', async () => {
    const other = `0x${'cd'.repeat(32)}`;
    await addWatchedAddresses(database, [other], {});
    const [row] = (await listWatchedAddresses(database)).filter((a) => a.address === other);
    expect(row).toMatchObject({
      datasets: ['positions', 'nfts'],
      chain: null,
      protocols: null,
      nftChain: 'ALL',
      includePnl: false,
    });
    await expect(removeWatchedAddresses(database, [other, EVM])).resolves.toBe(2);
  });

  it('reads input of any size as a stream, in batches, and writes nothing when one line is bad', async () => {
    const count = 25_000;
    const coinType = (i: number) => `0x${i.toString(16)}::token${i}::T${i}`;
    const lines = async function* () {
      for (let i = 0; i < count; i++) yield { value: coinType(i), where: `list:${i + 1}` };
    };
    await expect(addWatchedTokens(database, lines)).resolves.toEqual({ added: count, existing: 0 });
    await expect(addWatchedTokens(database, lines)).resolves.toEqual({ added: 0, existing: count });
    const withBad = async function* () {
      yield* lines();
      yield { value: 'not a coin type', where: `list:${count + 1}` };
    };
    await expect(removeWatchedTokens(database, withBad)).rejects.toThrow(
      /^nothing written: list:25001: invalid coin type "not a coin type"/,
    );
    expect((await listWatchedTokens(database)).length).toBe(count + 2);
    await expect(removeWatchedTokens(database, lines)).resolves.toBe(count);
  });
});
