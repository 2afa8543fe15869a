import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { upstreamPaceKey } from '../../src/queue/redis-keys.ts';
import { createSharedRateLimiter } from '../../src/upstream/rate-limiter.ts';

const SUI_LONG = `0x${'0'.repeat(63)}2::sui::SUI`;
const USDC = `0x${'d'.repeat(64)}::usdc::USDC`;
const ADDRESS = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const EVM = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';
const SOLANA = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

let harness: PipelineHarness;
beforeAll(async () => {
  harness = await createPipelineHarness();
});
afterAll(async () => harness?.close());

const cli = (...args: string[]) => runCli(args, harness.env);

describe('chaintap CLI, as a user runs it', () => {
  it('migrates again without harm', async () => {
    const result = await cli('migrate');
    expect(result.stderr).not.toMatch(/"level":"(warn|error|fatal)"/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('database migrated');
  });

  it('manages the token watchlist in one normal form, and an invalid coin type writes nothing', async () => {
    expect((await cli('tokens', 'add', '0x2::sui::SUI', USDC, SUI_LONG)).stdout).toContain(
      'added 2 token(s), 0 already watched',
    );
    expect((await cli('tokens', 'add', SUI_LONG)).stdout).toContain('added 0 token(s), 1 already watched');
    const bad = await cli('tokens', 'add', `0x${'e'.repeat(64)}::cetus::CETUS`, '0x2::sui');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid coin type "0x2::sui"');
    expect((await cli('tokens', 'list')).stdout.trim().split('\n')).toEqual([SUI_LONG, USDC].sort());
  });

  it('manages addresses with their options', async () => {
    const added = await cli('addresses', 'add', ADDRESS, '--nft-chain', 'sui', '--pnl', '--chain', 'sui');
    expect(added.code).toBe(0);
    const unknownChain = await cli('addresses', 'add', EVM, '--nft-chain', 'DOGE');
    expect(unknownChain.code).toBe(1);
    expect(unknownChain.stderr).toContain('unknown NFT chain "DOGE"');
    const list = await cli('addresses', 'list');
    expect(list.stdout.trim()).toBe(`${ADDRESS}\tSUI\tdatasets=positions,nfts chain=sui nft-chain=SUI pnl`);
    // Options not given are kept when an address is added again.
    await cli('addresses', 'add', ADDRESS, '--protocols', 'cetus');
    expect((await cli('addresses', 'list')).stdout.trim()).toBe(
      `${ADDRESS}\tSUI\tdatasets=positions,nfts chain=sui protocols=cetus nft-chain=SUI pnl`,
    );
  });

  it('watches wallets of other formats, each with its datasets and chains', async () => {
    // An EVM and a Solana wallet, NFTs only, on their own chains; an EVM address in capitals is one address.
    expect((await cli('addresses', 'add', EVM, '--datasets', 'nfts', '--nft-chain', 'base')).code).toBe(0);
    expect((await cli('addresses', 'add', SOLANA, '--datasets', 'nfts', '--nft-chain', 'SOL')).code).toBe(0);
    const again = await cli('addresses', 'add', EVM.toUpperCase().replace('0X', '0x'));
    expect(again.stdout).toContain('added 0 address(es), updated 0');
    expect((await cli('addresses', 'list')).stdout.trim().split('\n')).toEqual([
      `${ADDRESS}\tSUI\tdatasets=positions,nfts chain=sui protocols=cetus nft-chain=SUI pnl`,
      `${EVM}\tEVM\tdatasets=nfts nft-chain=BASE`,
      `${SOLANA}\tSolana\tdatasets=nfts nft-chain=SOL`,
    ]);
    expect((await cli('addresses', 'remove', EVM, SOLANA)).stdout).toContain('removed 2 address(es)');
  });

  it('refuses an address its chain cannot query, naming its format and the chain, writing nothing', async () => {
    const before = (await cli('addresses', 'list')).stdout;
    const otherChain = await cli('addresses', 'add', SOLANA, '--nft-chain', 'ETH');
    expect(otherChain.code).toBe(1);
    expect(otherChain.stderr.trim()).toBe(
      `error: nothing written: address ${SOLANA} is a Solana address (base58 of 32 bytes), and NFT chain ETH takes an EVM address (0x and 40 hex digits): use --nft-chain SOL or ALL`,
    );
    const positionsChain = await cli('addresses', 'add', EVM, `0x${'a'.repeat(64)}`, '--chain', 'ethereum');
    expect(positionsChain.code).toBe(1);
    expect(positionsChain.stderr).toContain(
      `address 0x${'a'.repeat(64)} is a SUI address (0x and 64 hex digits), and positions chain ethereum takes an EVM address (0x and 40 hex digits)`,
    );
    const badDatasets = await cli('addresses', 'add', EVM, '--datasets', 'prices');
    expect(badDatasets.stderr).toContain('invalid datasets "prices": expected positions, nfts or both');
    expect((await cli('addresses', 'list')).stdout).toBe(before);
  });

  it('names the first few of many bad addresses, in one screen, writing nothing', async () => {
    const before = (await cli('addresses', 'list')).stdout;
    // A long list of bad values: the first few named, one screen.
    const many = Array.from({ length: 500 }, (_, i) => `0x${i.toString(16).padStart(39, '0')}`);
    const flood = await cli('addresses', 'add', ...many);
    expect(flood.code).toBe(1);
    expect(flood.stderr).toMatch(/^error: nothing written: invalid address "0x0{39}": expected a SUI address/);
    expect(flood.stderr).toMatch(/; and 495 more\n$/);
    expect(flood.stderr.length).toBeLessThan(3_000);
    expect((await cli('addresses', 'list')).stdout).toBe(before);
  });

  it('runs one cycle and prints a summary, exit 0', async () => {
    const result = await cli('run-once', '--tick', '2026-11-21T11:00:00Z');
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('cycle 2026-11-21T11:00:00.000Z');
    expect(result.stdout).toMatch(/prices\s+1\s+1\s+0\s+0\s+\d+/);
    expect(result.stdout).toMatch(/positions\s+1\s+1\s+0\s+0\s+\d+/);
    expect(result.stdout).toMatch(/nfts\s+1\s+1\s+0\s+0\s+\d+/);
    const bad = await cli('run-once', '--datasets', 'prices,weather');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid --datasets');
  });

  it('backfills prices', async () => {
    const result = await cli(
      'backfill',
      'prices',
      '--from',
      '2026-11-20T00:00:00Z',
      '--to',
      '2026-11-20T03:00:00Z',
      '--interval',
      '1h',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('backfill: 4 step(s) x 2 token(s); 0 already stored, 4 request(s) done');
    const [row] = await harness.database.sql`
      select count(*)::int as n from token_prices where price_time between '2026-11-20T00:00:00Z' and '2026-11-20T03:00:00Z'`;
    expect(row!.n).toBe(8);
  });

  it('reports status', async () => {
    const result = await cli('status');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/positions\s+last tick 2026-11-21T11:00:00.000Z/);
    expect(result.stdout).toMatch(/failures in the last 24 hours\n\s+none/);
    expect(result.stdout).toContain(
      `addresses: 2 token(s), 1 address(es)\n  ${ADDRESS}  SUI: positions on sui (cetus); NFTs on SUI, with PnL\nquota\n`,
    );
    // 2 tokens (one price request a minute), 1 address (positions 4 an hour, NFTs 1), the protocol list.
    expect(result.stdout).toContain(
      'quota\n  1000/s (UPSTREAM_RATE) allows 3,600,000 req/h; the watchlist needs 65.04 req/h: fits (0% of the quota)\n',
    );
    expect(result.stdout).toMatch(
      /^ {2}positions\s+needs 4 req\/h, gets 4: every 15 min; 0 job\(s\) superseded in the last hour$/m,
    );
  });

  it('reports a watchlist over the quota in status, by how much, with the jobs superseded in the last hour', async () => {
    const now = new Date();
    await harness.database.sql`
      insert into ingestion_runs (job_id, dataset, target, tick, status, attempts, error, started_at, finished_at) values
        ('positions-a-1', 'positions', 'a', ${now}, 'superseded', 0, 'superseded by a newer tick', ${now}, ${now}),
        ('positions-b-1', 'positions', 'b', ${now}, 'superseded', 0, 'superseded by a newer tick', ${now}, ${now}),
        ('positions-c-1', 'positions', 'c', ${now}, 'superseded', 0, 'superseded by a newer tick',
         ${new Date(now.getTime() - 2 * 3600_000)}, ${new Date(now.getTime() - 2 * 3600_000)})`;
    // UPSTREAM_RPS emptied: the harness sets it, and the two must not disagree.
    const result = await runCli(['status'], { ...harness.env, UPSTREAM_RPS: '', UPSTREAM_RATE: '30/h' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  30/h (UPSTREAM_RATE) allows 30 req/h; the watchlist needs 65.04 req/h: over budget: needs 2.2x the quota: prices every 2 min at best, positions never, nfts never\n',
    );
    expect(result.stdout).toMatch(
      /^ {2}prices\s+needs 60 req\/h, gets 29.96: every 2 min at best; 0 job\(s\) superseded in the last hour$/m,
    );
    expect(result.stdout).toMatch(
      /^ {2}positions\s+needs 4 req\/h, gets 0: never \(the quota is used up by prices\); 2 job\(s\) superseded in the last hour$/m,
    );
    expect(result.stdout).toContain(
      '  !! over budget; to fit: a quota of at least 66/h, fewer addresses or tokens, or slower crons',
    );
  });

  it('reports a pause of the upstream requests in force in status, with its end and reason', async () => {
    const pacer = createSharedRateLimiter({
      redis: harness.connection,
      key: upstreamPaceKey(harness.options.QUEUE_PREFIX),
      rps: 1,
    });
    const reason = 'HTTP 429 (positions): Retry-After 86,400 s, capped at 900 s (UPSTREAM_MAX_PAUSE_MS)';
    const until = await pacer.pause(900_000, reason);
    try {
      const result = await cli('status');
      expect(result.code).toBe(0);
      const lines = result.stdout.split('\n');
      const line = lines[lines.indexOf('quota') + 1]!;
      // 900 s less the command's start, rounded to the second.
      expect(line).toMatch(/^ {2}!! upstream requests paused until \S+ \((14 min \d+|15 min 0) s from now\): /);
      expect(line).toContain(`until ${until.toISOString()} (`);
      expect(line.endsWith(`: ${reason}`)).toBe(true);
    } finally {
      await harness.connection.del(upstreamPaceKey(harness.options.QUEUE_PREFIX));
    }
  });

  it('lists the stored responses and prints a body exactly as the upstream sent it', async () => {
    const list = await cli('raw', 'list', '--dataset', 'positions', '--tick', '2026-11-21T11:00:00Z');
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const [id, , dataset, target, tick, status, endpoint] = lines[0]!.split('\t');
    expect({ dataset, target, tick, status }).toEqual({
      dataset: 'positions',
      target: ADDRESS,
      tick: '2026-11-21T11:00:00.000Z',
      status: '200',
    });
    const shown = await cli('raw', 'show', id!);
    expect(shown.code).toBe(0);
    // What the simulated upstream answers for the same request (its world time is the tick's).
    const response = await fetch(`${harness.simulator.url}${endpoint}`, {
      headers: { 'x-api-key': harness.env.UPSTREAM_API_KEY! },
    });
    expect(shown.stdout).toBe(`${await response.text()}\n`);
    const missing = await cli('raw', 'show', '999999');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no stored response with id 999999');
    const bad = await cli('raw', 'show', 'abc');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid raw_responses id "abc"');
  });

  it('says so when a past tick did not run because a newer one came first, exit 4; refuses a tick after now', async () => {
    const past = await cli('run-once', '--tick', '2026-11-21T10:40:00Z', '--datasets', 'positions');
    expect(past.code).toBe(4);
    expect(past.stdout).toMatch(/positions\s+1\s+0\s+0\s+0\s+1\s+0\n/);
    expect(past.stderr).toContain('1 job(s) did not run: superseded, their targets already have a job of a newer tick');
    expect(past.stderr).not.toContain('quota');
    const [run] = await harness.database.sql`
      select status, error from ingestion_runs where dataset = 'positions' and tick = '2026-11-21T10:40:00Z'`;
    expect(run).toEqual({ status: 'superseded', error: 'superseded by the tick 2026-11-21T11:00:00.000Z' });

    const later = new Date(Date.now() + 3_600_000).toISOString();
    const future = await cli('run-once', '--tick', later, '--datasets', 'positions');
    expect(future.code).toBe(1);
    expect(future.stderr).toMatch(
      /^error: invalid --tick ".*": .* is after now \(.*\); a tick to come would supersede/,
    );
    const [{ n }] = await harness.database.sql`select count(*)::int as n from ingestion_runs where tick > now()`;
    expect(n).toBe(0);
  });
});
