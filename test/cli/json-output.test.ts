import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../support/cli.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { count, iso, Status, WatchedAddress } from '../support/json-shapes.ts';

// The shapes documented in docs/operations.md, "JSON output", field for field: a field added to an
// output without the documentation, or renamed, fails here (strict objects).
const TokensList = z.array(z.strictObject({ coinType: z.string(), addedAt: iso }));
const AddressesList = z.array(WatchedAddress);
const RawList = z.array(
  z.strictObject({
    id: z.string().regex(/^\d+$/),
    receivedAt: iso,
    dataset: z.string(),
    endpoint: z.string(),
    target: z.string(),
    tick: iso,
    httpStatus: z.number().int(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bodyBytes: count,
  }),
);
const RunSummary = z.strictObject({
  tick: iso,
  complete: z.boolean(),
  datasets: z.array(
    z.strictObject({
      dataset: z.string(),
      jobs: count,
      succeeded: count,
      quarantined: count,
      failed: count,
      pending: count,
      rowsWritten: count,
    }),
  ),
});
const ADDRESS = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const SUI = `0x${'0'.repeat(63)}2::sui::SUI`;
const TICK = '2026-11-21T11:00:00.000Z';

let harness: PipelineHarness;
beforeAll(async () => {
  harness = await createPipelineHarness();
  await harness.database.sql`insert into watched_tokens (coin_type) values (${SUI})`;
  await harness.database
    .sql`insert into watched_addresses (address, nft_chain, include_pnl) values (${ADDRESS}, 'SUI', true)`;
});
afterAll(async () => harness?.close());

/** Runs `chaintap <args>`, expecting exit 0, and parses its standard output with `schema`. */
async function json<T>(schema: z.ZodType<T>, ...args: string[]): Promise<T> {
  const result = await runCli(args, harness.env);
  expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
  return schema.parse(JSON.parse(result.stdout));
}

describe('chaintap --json', () => {
  it('prints the run-once summary in its documented shape', async () => {
    const summary = await json(RunSummary, 'run-once', '--tick', TICK, '--json');
    expect(summary.tick).toBe(TICK);
    expect(summary.complete).toBe(true);
    expect(summary.datasets.map((row) => [row.dataset, row.jobs, row.succeeded, row.failed])).toEqual([
      ['prices', 1, 1, 0],
      ['positions', 1, 1, 0],
      ['nfts', 1, 1, 0],
    ]);
  });

  it('prints the watchlist in its documented shapes', async () => {
    expect((await json(TokensList, 'tokens', 'list', '--json')).map((row) => row.coinType)).toEqual([SUI]);
    expect(await json(AddressesList, 'addresses', 'list', '--json')).toEqual([
      expect.objectContaining({
        address: ADDRESS,
        format: 'sui',
        datasets: ['positions', 'nfts'],
        chain: null,
        protocols: null,
        nftChain: 'SUI',
        includePnl: true,
      }),
    ]);
  });

  it('lists the stored responses, ids as exact decimal strings, in the documented shape', async () => {
    const rows = await json(RawList, 'raw', 'list', '--dataset', 'positions', '--json');
    expect(rows).toHaveLength(1);
    const [stored] = await harness.database.sql<{ id: string; bytes: number }[]>`
      select id::text, octet_length(body) as bytes from raw_responses where dataset = 'positions'`;
    expect(rows[0]).toMatchObject({
      id: stored!.id,
      target: ADDRESS,
      tick: TICK,
      httpStatus: 200,
      bodyBytes: stored!.bytes,
    });
  });

  it('prints the status in its documented shape', async () => {
    const status = await json(Status, 'status', '--json');
    expect(status.datasets.map((row) => row.dataset).sort()).toEqual(['nfts', 'positions', 'prices']);
    expect(status.addresses).toEqual({
      count: 1,
      listed: [expect.objectContaining({ address: ADDRESS, format: 'sui', datasets: ['positions', 'nfts'] })],
    });
    expect(status.quota.plan.fits).toBe(true);
    expect(status.queues.depths.map((row) => row.queue).sort()).toEqual([
      'maintenance',
      'nfts',
      'positions',
      'price-catch-up',
      'prices',
    ]);
  });
});

describe('chaintap --version', () => {
  it("prints package.json's version and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], {});
      expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });
});

describe('ids from the command line', () => {
  it('reads a bigint id exactly, past 2^53: never a neighbouring row', async () => {
    // 2^53 and 2^53 + 1: the same JavaScript number.
    const ids = ['9007199254740992', '9007199254740993'];
    for (const id of ids) {
      await harness.database.sql`
        insert into raw_responses (id, received_at, dataset, endpoint, target, tick, http_status, sha256, body)
        values (${id}, now(), 'prices', '/x', ${`row-${id}`}, now(), 200, ${id}, ${`{"row":"${id}"}`})`;
    }
    for (const id of ids) {
      const shown = await runCli(['raw', 'show', id], harness.env);
      expect(shown).toMatchObject({ code: 0, stdout: `{"row":"${id}"}\n` });
    }
    const missing = await runCli(['raw', 'show', '9007199254740995'], harness.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'error: no stored response with id 9007199254740995 (pruned after RAW_RETENTION_DAYS, or never stored)\n',
    );
  });

  it('refuses an id past the bigint range, or not a whole number, naming the argument', async () => {
    for (const [value, what] of [
      ['99999999999999999999', 'expected an id (a whole number), from 1 to 9223372036854775807'],
      ['9223372036854775808', 'expected an id (a whole number), from 1 to 9223372036854775807'],
      ['0', 'expected an id (a whole number), from 1 to 9223372036854775807'],
      ['1e3', 'expected an id (a whole number)'],
    ] as const) {
      const result = await runCli(['raw', 'show', value], harness.env);
      expect(result.code, value).toBe(1);
      expect(result.stderr, value).toBe(`error: invalid raw_responses id "${value}": ${what}\n`);
    }
    const limit = await runCli(['raw', 'list', '--limit', '99999999999999999999'], harness.env);
    expect(limit.code).toBe(1);
    expect(limit.stderr).toBe(
      'error: invalid --limit "99999999999999999999": expected a whole number, from 1 to 9007199254740991\n',
    );
  });
});
