import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * `chaintap plan` as a user runs it, on a watchlist added through `chaintap tokens add` and
 * `chaintap addresses add`: the overloaded setup (150 addresses, positions and NFTs every
 * minute, 2 requests a second) refreshes by change rate within the max ages (exit 0), a quota too
 * small for the max ages exits 3, the same watchlist at the default crons and quota fits.
 */
const ADDRESSES = Array.from({ length: 150 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}`);
const OVERLOADED = { UPSTREAM_RATE: '2/s', POSITIONS_CRON: '* * * * *', NFT_CRON: '* * * * *' };

let database: TestDatabase;
let folder: string;
const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { DATABASE_URL: database.url, LOG_LEVEL: 'warn', ...env });

beforeAll(async () => {
  database = await createTestDatabase();
  folder = mkdtempSync(join(tmpdir(), 'chaintap-plan-'));
  writeFileSync(join(folder, 'addresses.txt'), `${ADDRESSES.join('\n')}\n`);
  writeFileSync(join(folder, 'removed.txt'), `${ADDRESSES.slice(40).join('\n')}\n`);
  expect((await cli(['tokens', 'add', '0x2::sui::SUI', `0x${'d'.repeat(64)}::usdc::USDC`])).code).toBe(0);
  const added = await cli(['addresses', 'add', '--file', join(folder, 'addresses.txt')]);
  expect(added.stdout).toContain('added 150 address(es)');
});

afterAll(async () => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  await database?.drop();
});

describe('chaintap plan', () => {
  it('exits 0 when the watchlist fits the quota, with the table and the verdict', async () => {
    const result = await cli(['plan']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'quota 40/min (UPSTREAM_RATE): 2,400 req/h, served in the order prices, positions, nfts (DATASET_PRIORITY)',
    );
    expect(lines[1]).toBe('watchlist: 2 token(s), 150 address(es)');
    expect(result.stdout).toMatch(/^positions\s+\*\/15 \* \* \* \*\s+150\s+600\s+600\s+every 15 min$/m);
    expect(result.stdout).toMatch(/^nfts\s+0 \* \* \* \*\s+150\s+150\s+150\s+every 1 h$/m);
    expect(result.stdout).toMatch(/^maintenance\s+30 3 \* \* \*\s+1\s+0.04\s+0.04\s+the protocol list$/m);
    expect(result.stdout).toMatch(/^total\s+810\s+2,400\s+the quota allows$/m);
    expect(lines).toContain('in all: needs 810 req/h; the quota (40/min) allows 2,400 req/h; fits (34% of the quota)');
    // Every address every slot: a change waits half a slot on average.
    expect(result.stdout).toMatch(
      /^ {2}positions: 150 addresses, every address every slot: a change is seen after 7.5 min on average, 95 % within 14.3 min; [\d,]+ addresses of this mix fit a 95th percentile of 30 min$/m,
    );
    expect(lines.at(-1)).toBe('  every address is refreshed within its max age');
  });

  it('over the crons, refreshes by change rate within the max ages: what each dataset gets, exit 0', async () => {
    const result = await cli(['plan', '--delay', '1h'], OVERLOADED);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^positions\s+\* \* \* \* \*\s+150\s+9,000\s+7,140\s+every 1.3 min at best$/m);
    expect(result.stdout).toMatch(
      /^nfts\s+\* \* \* \* \*\s+150\s+9,000\s+0\s+never \(the quota is used up by prices and positions\)$/m,
    );
    expect(result.stdout).toContain(
      'in all: needs 18,060 req/h; the quota (2/s) allows 7,200 req/h; over budget: needs 2.5x the quota: positions every 1.3 min at best, nfts never',
    );
    expect(result.stdout).toContain('to fit: a quota of at least 6/s, fewer addresses or tokens, or slower crons');
    // What the pacer sends of the quota (7,200 / 1.04) after prices and maintenance, less 3 % headroom (6,657 req/h): every address's max age
    // first (nfts: 150 a day), the rest to positions, which come first in DATASET_PRIORITY.
    expect(result.stdout).toMatch(
      /^ {2}positions: 150 addresses, 6,6\d\d req\/h, where changes are expected: a change is seen after [\d.]+ min on average, 95 % within [\d.]+ min; [\d,]+ addresses of this mix fit a 95th percentile of 1 h$/m,
    );
    expect(result.stdout).toMatch(/^ {2}nfts: 150 addresses, 6.\d+ req\/h, where changes are expected: /m);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('  every address is refreshed within its max age');
  });

  it('exits 3 when even the max ages cannot be held, and says so', async () => {
    const result = await cli(['plan'], { ...OVERLOADED, UPSTREAM_RATE: '5/h' });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(
      '  !! the quota cannot refresh every address within its max age: raise the quota or the max ages (REFRESH_MAX_AGE, addresses add --max-age), or watch fewer addresses',
    );
    const json = await cli(['plan', '--json'], { ...OVERLOADED, UPSTREAM_RATE: '5/h' });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout).refresh).toMatchObject({ unheld: true });
  });

  it('refuses a --delay that is not a duration', async () => {
    const result = await cli(['plan', '--delay', 'soon']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('invalid --delay "soon": expected a duration such as 15m, 1h or 1d');
  });

  it('prints the plan as JSON with --json, with the same exit codes', async () => {
    const over = await cli(['plan', '--json'], OVERLOADED);
    expect(over.code).toBe(0);
    const plan = JSON.parse(over.stdout);
    expect(plan).toMatchObject({ fits: false, tokens: 2, addresses: 150, availablePerHour: 7200 });
    expect(plan.refresh).toMatchObject({ unheld: false });
    expect(plan.refresh.datasets.map((d: { dataset: string; everySlot: boolean }) => [d.dataset, d.everySlot])).toEqual(
      [
        ['positions', false],
        ['nfts', false],
      ],
    );
    expect(plan.rate).toMatchObject({ label: '2/s', rps: 2 });
    expect(plan.datasets.map((d: { dataset: string; cadenceMinutes: number | null }) => d.cadenceMinutes)).toEqual([
      1,
      expect.closeTo(150 / (7140 / 60), 3),
      null,
    ]);
    const fits = await cli(['plan', '--json']);
    expect(fits.code).toBe(0);
    expect(JSON.parse(fits.stdout).fits).toBe(true);
  });

  it('takes UPSTREAM_RPS as the alias it is, and the configured dataset order', async () => {
    const result = await cli(['plan'], {
      ...OVERLOADED,
      UPSTREAM_RATE: '',
      UPSTREAM_RPS: '2',
      DATASET_PRIORITY: 'nfts,prices,positions',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'quota 2/s (UPSTREAM_RATE): 7,200 req/h, served in the order nfts, prices, positions',
    );
    expect(result.stdout).toMatch(/^positions\s.*never \(the quota is used up by nfts\)$/m);
  });

  it('fits again once addresses are removed', async () => {
    expect((await cli(['addresses', 'remove', '--file', join(folder, 'removed.txt')])).stdout).toContain(
      'removed 110 address(es)',
    );
    // 40 addresses every minute, twice: 4,800 + 60 of 7,200 requests an hour.
    const result = await cli(['plan'], OVERLOADED);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'in all: needs 4,860 req/h; the quota (2/s) allows 7,200 req/h; fits (68% of the quota)',
    );
  });

  it('refuses a quota it cannot read, naming the setting', async () => {
    const result = await cli(['plan'], { UPSTREAM_RATE: '40 per minute' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('UPSTREAM_RATE');
    expect(result.stderr).toContain('40/min');
  });
});
