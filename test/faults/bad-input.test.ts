import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import { runCli } from '../support/cli.ts';
import { recordScenario } from '../support/fault-scenario.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { tableDigest } from '../support/table-digest.ts';
import { coin } from '../support/coins.ts';

// Bad input through the CLI, as users type it: a clear message, a non-zero exit and nothing written;
// a large file with duplicates and blank lines is taken whole and exactly once.
let database: TestDatabase;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  database = await createTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'chaintap-bad-input-'));
  env = { DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

const hex = (label: string) => createHash('sha256').update(label).digest('hex');
/** Coin type number i in a second spelling of the same type: short, upper-case, with blanks around. */
const coinOtherSpelling = (i: number) => `  0x${(0x1000 + i).toString(16).toUpperCase()}::coin${i}::COIN${i}\t`;
const address = (i: number) => `0x${hex(`address-${i}`)}`;

/**
 * A 10,000-line token file: `distinct` coin types from `first` on, each again in another spelling or
 * verbatim, blank lines and comments, shuffled deterministically.
 */
function tokenFile(name: string, first: number, distinct: number, extraLines: string[] = []): string {
  const lines: string[] = [];
  for (let i = first; i < first + distinct; i++) lines.push(coin(i));
  for (let i = first; lines.length < 8_500; i++)
    lines.push(i % 2 ? coin(first + (i % distinct)) : coinOtherSpelling(first + (i % distinct)));
  while (lines.length < 9_500) lines.push(lines.length % 3 ? '' : '   ');
  while (lines.length < 10_000 - extraLines.length) lines.push(`# comment ${lines.length}`);
  lines.push(...extraLines);
  // Deterministic shuffle, so that the bad line is somewhere in the middle and duplicates are apart.
  let state = 12345;
  for (let i = lines.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
  }
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

async function watchlistDigest() {
  return tableDigest(database, {});
}

async function watched(): Promise<{ tokens: number; addresses: number }> {
  const [row] = await database.sql<{ tokens: number; addresses: number }[]>`
    select (select count(*) from watched_tokens)::int as tokens, (select count(*) from watched_addresses)::int as addresses`;
  return row!;
}

describe('tokens', () => {
  it('rejects invalid coin types and a coin type with a comma, writing nothing, even with valid ones beside them', async () => {
    const before = await watchlistDigest();
    const cases: [string[], RegExp][] = [
      [
        ['0x2::sui::SUI', '0x2::pool::LP<0x2::sui::SUI,0xdba3::usdc::USDC>'],
        /contains a comma: the upstream takes a comma-separated list/,
      ],
      [
        ['0x2::sui::SUI', '0xZZ::sui::SUI'],
        /invalid coin type "0xZZ::sui::SUI": the first segment must be 0x followed by 1 to 64 hex digits/,
      ],
      [['0x2::sui'], /invalid coin type "0x2::sui": expected address::module::Name/],
      [['0x2::sui::SUI<'], /invalid coin type "0x2::sui::SUI<": unbalanced < >/],
      [['0x2::1sui::SUI', '0x2::sui::SUI'], /module and name must be identifiers/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['tokens', 'add', ...args], env);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/^error: nothing written: /);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    }
    const empty = await runCli(['tokens', 'add'], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/nothing given: pass values as arguments or with --file PATH/);
    const missing = await runCli(['tokens', 'add', '--file', join(dir, 'no-such-file.txt')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*no-such-file\.txt/);
    expect(await watchlistDigest()).toEqual(before);
  });

  it('takes a 10,000-line file with duplicates, other spellings, blank lines and comments: exactly the distinct coin types, once', async () => {
    const path = tokenFile('tokens.txt', 0, 6_000);
    const result = await runCli(['tokens', 'add', '--file', path], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('added 6000 token(s), 0 already watched');
    expect((await watched()).tokens).toBe(6_000);
    const [stored] = await database.sql`
      select count(*)::int as n, count(*) filter (where coin_type ~ '^0x[0-9a-f]{64}::coin[0-9]+::COIN[0-9]+$')::int as normal from watched_tokens`;
    expect(stored).toEqual({ n: 6_000, normal: 6_000 });
    // Exactly the file's distinct coin types, in their normal form: none lost, none twice.
    const expected = new Set(Array.from({ length: 6_000 }, (_, i) => normalizeCoinType(coin(i))));
    const rows = (await database.sql<{ coin_type: string }[]>`select coin_type from watched_tokens`).map(
      (row) => row.coin_type,
    );
    const found = new Set(rows);
    const lost = [...expected].filter((coinType) => !found.has(coinType)).length;
    const duplicates = rows.length - found.size;
    recordScenario('10,000-line token file (duplicates, other spellings, blanks)', {
      rowsExpected: expected.size,
      rowsFound: rows.length,
      duplicates,
      lost,
      changed: 0,
      extra: rows.filter((row) => !expected.has(row)).length,
      differences: {},
      tablesDiffering: [],
    });
    expect({ lost, duplicates, found: rows.length }).toEqual({ lost: 0, duplicates: 0, found: 6_000 });

    const again = await runCli(['tokens', 'add', '--file', path], env);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe('added 0 token(s), 6000 already watched');
    expect((await watched()).tokens).toBe(6_000);
  });

  it('writes nothing from a 10,000-line file with one bad line, and names the bad value', async () => {
    const before = await watchlistDigest();
    const path = tokenFile('tokens-one-bad.txt', 6_000, 6_000, ['0x2::pool::LP<0x2::sui::SUI,0x2::usdc::USDC>']);
    const result = await runCli(['tokens', 'add', '--file', path], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: nothing written: \S+tokens-one-bad\.txt:\d+: coin type "0x2::pool::LP<0x2::sui::SUI,0x2::usdc::USDC>" contains a comma/,
    );
    expect(await watchlistDigest()).toEqual(before);
    expect((await watched()).tokens).toBe(6_000);
  });
});

describe('addresses', () => {
  it('rejects invalid addresses, an unknown NFT chain and a bad chain filter, writing nothing', async () => {
    const before = await watchlistDigest();
    const cases: [string[], RegExp][] = [
      [
        [address(1), '0x123'],
        /invalid address "0x123": expected a SUI address \(0x and 64 hex digits\), an EVM address \(0x and 40 hex digits\)/,
      ],
      [[address(1), 'not-an-address'], /invalid address "not-an-address"/],
      [[address(1), `${address(2)}g`], /invalid address/],
      [[address(1), '--nft-chain', 'XYZ'], /unknown NFT chain "XYZ": expected one of BTC, SOL, SUI, .*ALL/],
      [[address(1), '--chain', 'not a chain!'], /invalid chain "not a chain!": expected a chain name such as sui/],
      [[address(1), '--protocols', 'cetus,bad protocol'], /invalid protocol id "bad protocol"/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['addresses', 'add', ...args], env);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/^error: /);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(await watchlistDigest()).toEqual(before);
    expect((await watched()).addresses).toBe(0);
  });

  it('writes nothing from an address file with one bad line among 2,000, and everything from the file without it', async () => {
    const good = Array.from({ length: 2_000 }, (_, i) =>
      i % 4 === 3
        ? address(i - 1)
            .toUpperCase()
            .replace('0X', '0x')
        : address(i),
    );
    const bad = [...good.slice(0, 1_000), '0xnot-hex', ...good.slice(1_000), ''];
    const badPath = join(dir, 'addresses-one-bad.txt');
    writeFileSync(badPath, bad.join('\n'));
    const before = await watchlistDigest();
    const rejected = await runCli(['addresses', 'add', '--file', badPath, '--pnl', '--nft-chain', 'sui'], env);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(
      /^error: nothing written: \S+addresses-one-bad\.txt:1001: invalid address "0xnot-hex"/,
    );
    expect(await watchlistDigest()).toEqual(before);

    const goodPath = join(dir, 'addresses.txt');
    writeFileSync(goodPath, ['# watched wallets', ...good, '', ''].join('\n'));
    const accepted = await runCli(['addresses', 'add', '--file', goodPath, '--pnl', '--nft-chain', 'sui'], env);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout.trim()).toBe('added 1500 address(es), updated 0');
    const [stored] = await database.sql`
      select count(*)::int as n, count(*) filter (where include_pnl and nft_chain = 'SUI' and address = lower(address))::int as as_asked from watched_addresses`;
    expect(stored).toEqual({ n: 1_500, as_asked: 1_500 });
  });
});
