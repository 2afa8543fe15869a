import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsvWatchlist, parseYamlWatchlist } from '../../src/cli/watchlist-file.ts';
import {
  addWatchedAddresses,
  addWatchedTokens,
  applyWatchlist,
  listWatchedAddresses,
  listWatchedTokens,
} from '../../src/db/index.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** `chaintap watchlist apply FILE`: the watchlist made equal to a YAML or CSV file (issue 26). */
const SUI_TOKEN = `0x${'0'.repeat(63)}2::sui::SUI`;
const USDC = `0x${'d'.repeat(64)}::usdc::USDC`;
const CETUS = `0x${'e'.repeat(64)}::cetus::CETUS`;
const SUI = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const EVM = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';
const SOLANA = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const OLD = `0x${'ab'.repeat(32)}`;

const YAML = `
tokens:
  - 0x2::sui::SUI
  - ${USDC}
addresses:
  - ${SUI}
  - address: ${EVM.toUpperCase().replace('0X', '0x')}
    datasets: [positions, nfts]
    chain: ethereum
    protocols: aave-v3, uniswap-v3
    nft_chain: base
  - { address: ${SOLANA}, datasets: nfts, nft_chain: SOL, pnl: true, max_age: 3d, every: 1h }
`;

const CSV = [
  'kind,value,datasets,chain,protocols,nft_chain,pnl,max_age,every',
  `token,0x2::sui::SUI,,,,,,,`,
  `token,${USDC},,,,,,,`,
  `address,${SUI},,,,,,,`,
  `address,${EVM},"positions,nfts",ethereum,aave-v3;uniswap-v3,BASE,no,,`,
  `address,${SOLANA},nfts,,,sol,yes,3d,1h`,
  '',
].join('\r\n');

const folder = mkdtempSync(join(tmpdir(), 'chaintap-watchlist-apply-'));
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await database?.drop();
});

const watchlist = async () => ({
  tokens: await listWatchedTokens(database),
  addresses: (await listWatchedAddresses(database)).map(({ addedAt: _, format: __, ...rest }) => rest),
});

describe('a declared watchlist file', () => {
  it('reads YAML and CSV alike: normal forms, defaults filled in', () => {
    const fromYaml = parseYamlWatchlist(YAML, 'w.yaml');
    expect(fromYaml).toEqual({
      tokens: [SUI_TOKEN, USDC],
      addresses: [
        {
          address: SUI,
          datasets: ['positions', 'nfts'],
          chain: null,
          protocols: null,
          nftChain: 'ALL',
          includePnl: false,
          maxAgeSeconds: null,
          everySeconds: null,
        },
        {
          address: EVM,
          datasets: ['positions', 'nfts'],
          chain: 'ethereum',
          protocols: ['aave-v3', 'uniswap-v3'],
          nftChain: 'BASE',
          includePnl: false,
          maxAgeSeconds: null,
          everySeconds: null,
        },
        {
          address: SOLANA,
          datasets: ['nfts'],
          chain: null,
          protocols: null,
          nftChain: 'SOL',
          includePnl: true,
          maxAgeSeconds: 259_200,
          everySeconds: 3_600,
        },
      ],
    });
    expect(parseCsvWatchlist(CSV, 'w.csv')).toEqual(fromYaml);
  });

  it('names every bad entry, by place, and refuses the file whole', () => {
    const bad = `
tokens: [0x2::sui, 0x2::sui::SUI]
addresses:
  - ${SOLANA}
  - { address: ${SOLANA}, nft_chain: ETH }
  - { address: ${SUI}, datasets: [prices] }
  - { address: nope }
  - { address: ${EVM}, colour: red }
`;
    expect(() => parseYamlWatchlist(bad, 'bad.yaml')).toThrow(
      'invalid watchlist file bad.yaml, nothing changed: tokens[0]: invalid coin type "0x2::sui": expected address::module::Name; ' +
        `addresses[1]: address ${SOLANA} is a Solana address (base58 of 32 bytes), and NFT chain ETH takes an EVM address (0x and 40 hex digits): use --nft-chain SOL or ALL; ` +
        'addresses[2]: invalid datasets "prices": expected positions, nfts or both, comma-separated; ' +
        'addresses[3]: invalid address "nope": expected a SUI address',
    );
    expect(() => parseYamlWatchlist(bad, 'bad.yaml')).toThrow(/addresses\[4\]: unknown field\(s\) colour$/);
    expect(() => parseYamlWatchlist(`addresses:\n  - ${SUI}\n  - { address: ${SUI}, pnl: true }\n`, 'x')).toThrow(
      `addresses[1]: ${SUI} again, with other options than at addresses[0]`,
    );
    expect(() => parseCsvWatchlist('kind,value\nwallet,x\n', 'x.csv')).toThrow(
      'line 2: kind "wallet": expected token or address',
    );
    expect(() => parseCsvWatchlist('value\nx\n', 'x.csv')).toThrow(/the header needs kind and value/);
    expect(() => parseYamlWatchlist('tokens: [a\n', 'x.yaml')).toThrow(/^invalid watchlist file x\.yaml \(line \d\)/);
  });

  it('adds, updates and removes to make the watchlist equal to the file; a dry run changes nothing', async () => {
    await addWatchedTokens(database, [SUI_TOKEN, CETUS]);
    await addWatchedAddresses(database, [SUI, OLD], {});
    await addWatchedAddresses(database, [EVM], { chain: 'ethereum', nftChain: 'ETH' });
    const before = await watchlist();
    const declared = parseYamlWatchlist(YAML, 'w.yaml');
    const dry = await applyWatchlist(database, declared, { dryRun: true });
    expect(await watchlist()).toEqual(before);
    const changes = await applyWatchlist(database, declared, { dryRun: false });
    expect(changes).toEqual(dry);
    expect(changes).toEqual({
      tokens: { added: [USDC], removed: [CETUS], unchanged: 1 },
      addresses: {
        added: [declared.addresses[2]],
        updated: [
          {
            before: {
              address: EVM,
              datasets: ['positions', 'nfts'],
              chain: 'ethereum',
              protocols: null,
              nftChain: 'ETH',
              includePnl: false,
              maxAgeSeconds: null,
              everySeconds: null,
            },
            after: declared.addresses[1],
          },
        ],
        removed: [OLD],
        unchanged: 1,
      },
    });
    expect(await watchlist()).toEqual({
      tokens: [SUI_TOKEN, USDC],
      addresses: [...declared.addresses].sort((a, b) => a.address.localeCompare(b.address)),
    });
    // Applied again: nothing to do.
    expect(await applyWatchlist(database, declared, { dryRun: false })).toEqual({
      tokens: { added: [], removed: [], unchanged: 2 },
      addresses: { added: [], updated: [], removed: [], unchanged: 3 },
    });
  });

  it('from the command line: prints what it changes, or with --dry-run what it would', async () => {
    const env = { DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
    const empty = join(folder, 'empty.yaml');
    writeFileSync(empty, 'tokens: []\naddresses: []\n');
    const dry = await runCli(['watchlist', 'apply', empty, '--dry-run'], env);
    expect(dry.stderr).toBe('');
    expect(dry.stdout).toBe(
      [
        'tokens: 0 to add, 2 to remove, 0 unchanged',
        `  - ${SUI_TOKEN}`,
        `  - ${USDC}`,
        'addresses: 0 to add, 0 to update, 3 to remove, 0 unchanged',
        `  - ${SUI}`,
        `  - ${EVM}`,
        `  - ${SOLANA}`,
        'dry run: nothing changed',
        '',
      ].join('\n'),
    );
    expect((await watchlist()).tokens).toHaveLength(2);
    const csv = join(folder, 'w.csv');
    writeFileSync(
      csv,
      CSV.replace(`token,${USDC},,,,,,,\r\n`, `token,${CETUS},,,,,,,\r\n`).replace(',sol,yes', ',sol,no'),
    );
    const applied = await runCli(['watchlist', 'apply', csv], env);
    expect(applied.stdout).toBe(
      [
        'tokens: 1 added, 1 removed, 1 unchanged',
        `  + ${CETUS}`,
        `  - ${USDC}`,
        'addresses: 0 added, 1 updated, 0 removed, 2 unchanged',
        `  ~ ${SOLANA} Solana: NFTs on SOL; every 1h; max age 3d (was: NFTs on SOL, with PnL; every 1h; max age 3d)`,
        '',
      ].join('\n'),
    );
  }, 120_000);
});
