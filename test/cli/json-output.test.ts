import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      superseded: count,
      pending: count,
      rowsWritten: count,
    }),
  ),
});
const DeclaredAddress = z.strictObject({
  address: z.string(),
  datasets: z.array(z.enum(['positions', 'nfts'])).min(1),
  chain: z.string().nullable(),
  protocols: z.array(z.string()).nullable(),
  nftChain: z.string(),
  includePnl: z.boolean(),
  maxAgeSeconds: z.number().int().positive().nullable(),
  everySeconds: z.number().int().positive().nullable(),
});
const WatchlistApply = z.strictObject({
  dryRun: z.boolean(),
  tokens: z.strictObject({ added: z.array(z.string()), removed: z.array(z.string()), unchanged: count }),
  addresses: z.strictObject({
    added: z.array(DeclaredAddress),
    updated: z.array(z.strictObject({ before: DeclaredAddress, after: DeclaredAddress })),
    removed: z.array(z.string()),
    unchanged: count,
  }),
});
const Backfill = z.strictObject({
  from: iso,
  to: iso,
  intervalSeconds: z.number().positive(),
  steps: count,
  tokens: count,
  alreadyStored: count,
  requests: count,
  complete: z.boolean(),
  succeeded: count,
  failed: count,
  quarantined: count,
  unfinished: count,
});
const AlertsTest = z.strictObject({
  file: z.string(),
  rules: count,
  webhooks: z.array(z.strictObject({ name: z.string(), signed: z.boolean() })),
  evaluations: z.array(
    z.strictObject({
      rule: z.string(),
      kind: z.string(),
      summary: z.string(),
      subjects: z.array(
        z.strictObject({
          subject: z.string().nullable(),
          outcome: z.enum([
            'would_fire',
            'would_resolve',
            'would_end_episode',
            'firing',
            'within_cooldown',
            'not_firing',
            'cannot_tell',
            'nothing_to_watch',
            'first_evaluation',
            'nothing_new',
          ]),
          text: z.string(),
          since: iso.nullable().optional(),
        }),
      ),
    }),
  ),
  wouldSend: count,
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

describe('chaintap --json of the commands that change or test', () => {
  const folder = mkdtempSync(join(tmpdir(), 'chaintap-json-output-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('watchlist apply --dry-run --json: every change, nothing changed', async () => {
    const file = join(folder, 'watchlist.yaml');
    const evm = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';
    writeFileSync(
      file,
      `tokens: [0x2::sui::SUI]\naddresses:\n  - { address: ${evm}, chain: ethereum, nft_chain: ETH }\n`,
    );
    const changes = await json(WatchlistApply, 'watchlist', 'apply', file, '--dry-run', '--json');
    expect(changes).toEqual({
      dryRun: true,
      tokens: { added: [], removed: [], unchanged: 1 },
      addresses: {
        added: [
          {
            address: evm,
            datasets: ['positions', 'nfts'],
            chain: 'ethereum',
            protocols: null,
            nftChain: 'ETH',
            includePnl: false,
            maxAgeSeconds: null,
            everySeconds: null,
          },
        ],
        updated: [],
        removed: [ADDRESS],
        unchanged: 0,
      },
    });
    const [row] = await harness.database.sql<{ n: number }[]>`select count(*)::int as n from watched_addresses`;
    expect(row!.n).toBe(1);
  });

  it('backfill prices --json: the outcome on stdout, the plan on stderr', async () => {
    const result = await runCli(
      [
        'backfill',
        'prices',
        '--from',
        '2026-11-20T00:00:00Z',
        '--to',
        '2026-11-20T01:00:00Z',
        '--tokens',
        SUI,
        '--json',
      ],
      harness.env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('backfill plan: 2 step(s) x 1 batch(es)');
    expect(Backfill.parse(JSON.parse(result.stdout))).toEqual({
      from: '2026-11-20T00:00:00.000Z',
      to: '2026-11-20T01:00:00.000Z',
      intervalSeconds: 3600,
      steps: 2,
      tokens: 1,
      alreadyStored: 0,
      requests: 2,
      complete: true,
      succeeded: 2,
      failed: 0,
      quarantined: 0,
      unfinished: 0,
    });
  });

  it('alerts test --json: each rule, each subject with its outcome, and how many events would be sent', async () => {
    const file = join(folder, 'rules.yaml');
    writeFileSync(
      file,
      [
        'webhooks: [{ url: "http://127.0.0.1:9/hook", name: hook, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }]',
        'rules:',
        '  - { id: prices-stale, kind: stale, dataset: prices, max_age: 1m }',
        '  - { id: nfts-fresh, kind: stale, dataset: nfts, max_age: 36500d }',
        `  - { id: opened, kind: position_opened, address: "${ADDRESS}" }`,
        '',
      ].join('\n'),
    );
    const test = await json(AlertsTest, 'alerts', 'test', '--rules', file, '--json');
    expect(test).toMatchObject({ file, rules: 3, webhooks: [{ name: 'hook', signed: true }], wouldSend: 1 });
    expect(test.evaluations.map(({ rule, subjects }) => [rule, subjects.map((s) => [s.subject, s.outcome])])).toEqual([
      ['prices-stale', [['prices', 'would_fire']]],
      ['nfts-fresh', [['nfts', 'not_firing']]],
      ['opened', [[null, 'first_evaluation']]],
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
