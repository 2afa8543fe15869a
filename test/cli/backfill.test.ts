import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import { jobId, priceBatchTarget } from '../../src/queue/jobs.ts';
import { runCli } from '../support/cli.ts';
import { startChaintap, waitFor } from '../support/fault-processes.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';

// `chaintap backfill prices` as a user runs it (stdin is not a terminal here): the plan first, a
// refusal above 10,000 requests without --yes, and times and intervals checked before anything.
let harness: PipelineHarness;
beforeAll(async () => {
  harness = await createPipelineHarness();
});
afterAll(async () => harness?.close());

// Bounded, so that a backfill that starts when it should not is ended with the test.
const backfill = (...args: string[]) => runCli(['backfill', 'prices', ...args], harness.env, 30_000);
const SUI = '0x2::sui::SUI';

async function nothingEnqueued(): Promise<void> {
  const counts = await harness.queues.prices.getJobCounts();
  expect(Object.values(counts).every((count) => count === 0)).toBe(true);
  const [row] = await harness.database.sql`select count(*)::int as n from ingestion_runs`;
  expect(row!.n).toBe(0);
}

describe('chaintap backfill prices', () => {
  it('refuses an interval below 1m, and times that are not one exact instant, before opening anything', async () => {
    const cases: [string[], string][] = [
      [
        ['--from', '2026-11-20T00:00:00Z', '--to', '2026-11-20T01:00:00Z', '--interval', '30s'],
        'error: invalid --interval "30s": below 1m, the upstream\'s useful resolution',
      ],
      [['--from', '2026-02-31', '--to', '2026-03-02'], 'error: invalid --from "2026-02-31": 2026-02 has 28 days'],
      [
        ['--from', '2026-11-20T00:00:00Z', '--to', '2026-11-20T03:00:00'],
        'error: invalid --to "2026-11-20T03:00:00": a time needs its zone',
      ],
      [['--from', '1', '--to', 'now'], 'error: invalid --from "1": expected an ISO 8601 time with Z or an offset'],
    ];
    for (const [args, message] of cases) {
      const result = await backfill(...args, '--tokens', SUI);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    await nothingEnqueued();
  });

  it('above 10,000 requests and no terminal to ask: shows the plan and refuses without --yes, enqueueing nothing', async () => {
    // A week at 1m: 10,081 steps x 1 batch.
    const result = await backfill(
      '--from',
      '2026-11-01T00:00:00Z',
      '--to',
      '2026-11-08T00:00:00Z',
      '--interval',
      '1m',
      '--tokens',
      SUI,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'backfill plan: 10,081 step(s) x 1 batch(es) of up to 50 tokens (1 token(s)) = 10,081 request(s); 0 already stored, 10,081 to send\n' +
        'at 1000/s (UPSTREAM_RATE) that takes at least 11 s, longer while scheduled requests share the quota\n',
    );
    expect(result.stderr.split('\n').filter((line) => line.startsWith('error:'))).toEqual([
      'error: nothing started: 10,081 requests is more than 10,000 and stdin is not a terminal to confirm it: pass --yes to start it, or use a larger --interval, a shorter range or fewer --tokens',
    ]);
    await nothingEnqueued();
  });

  it('shows the plan of a small backfill and runs it without asking', async () => {
    const result = await backfill(
      '--from',
      '2026-11-20T00:00:00Z',
      '--to',
      '2026-11-20T04:00:00+01:00',
      '--tokens',
      `${SUI},0x${'d'.repeat(64)}::usdc::USDC`,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'backfill plan: 4 step(s) x 1 batch(es) of up to 50 tokens (2 token(s)) = 4 request(s); 0 already stored, 4 to send\n',
    );
    expect(result.stdout).toContain('backfill: 4 step(s) x 2 token(s); 0 already stored, 4 request(s) done');
    // Run again: the plan counts what is stored.
    const again = await backfill('--from', '2026-11-20T00:00:00Z', '--to', '2026-11-20T03:00:00Z', '--tokens', SUI);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('= 4 request(s); 4 already stored, 0 to send\n');
  });

  it('judges a run by its own requests: a batch that failed in an earlier run and is asked again in a new batch does not fail it', async () => {
    // An earlier run asked SUI, USDC and CETUS at 01:00 in one batch, which failed for good; SUI and
    // USDC are stored since (the test above), so this run asks CETUS alone: a new batch, a new job.
    const tick = new Date('2026-11-20T01:00:00Z');
    const usdc = `0x${'d'.repeat(64)}::usdc::USDC`;
    const cetus = `0x${'e'.repeat(64)}::cetus::CETUS`;
    const earlier = priceBatchTarget([SUI, usdc, cetus].map(normalizeCoinType), 'backfill');
    await harness.database.sql`
      insert into ingestion_runs (job_id, dataset, target, tick, status, attempts, error, started_at, finished_at)
      values (${jobId('prices', earlier, tick)}, 'backfill', ${earlier}, ${tick}, 'failed', 1,
              'connection terminated', now(), now())`;
    const result = await backfill(
      '--from',
      tick.toISOString(),
      '--to',
      tick.toISOString(),
      '--tokens',
      `${SUI},${usdc},${cetus}`,
    );
    expect(result.stdout).toContain('= 1 request(s); 0 already stored, 1 to send\n');
    expect(result.stdout).toContain('backfill: 1 step(s) x 3 token(s); 2 already stored, 1 request(s) done');
    expect(result.stderr).not.toContain('request(s) failed');
    expect(result.code).toBe(0);
    const [stored] = await harness.database.sql<{ n: number }[]>`
      select count(*)::int as n from token_prices where coin_type = ${normalizeCoinType(cetus)} and price_time = ${tick}`;
    expect(stored!.n).toBe(1);
  });
});

describe('chaintap backfill prices, interrupted', () => {
  let slow: PipelineHarness;
  beforeAll(async () => {
    // Two requests a second, each answered in 300 ms: a backfill of 12 steps takes about 6 s.
    slow = await createPipelineHarness({
      options: { UPSTREAM_RPS: '2' },
      simulator: { faults: { latencyMs: 300 } },
    });
  });
  afterAll(async () => slow?.close());

  it('Ctrl-C: says how many requests did not finish, exits 1, and a second run completes it', async () => {
    const args = [
      'backfill',
      'prices',
      '--from',
      '2026-11-20T00:00:00Z',
      '--to',
      '2026-11-20T11:00:00Z',
      '--tokens',
      SUI,
    ];
    const backfill = startChaintap('backfill', args, slow.env);
    await waitFor('two requests at the simulator', () => slow.simulator.stats().requests >= 2, 30_000, 50);
    const { code } = await backfill.stop('SIGINT');
    expect(code).toBe(1);
    expect(backfill.lines).toContain('backfill: 12 step(s) x 1 token(s); 0 already stored, 12 request(s) NOT all done');
    const line = backfill.lines.find((text) => text.includes('did not finish'));
    expect(line).toMatch(
      /^0 request\(s\) failed, \d+ did not finish and 0 were quarantined: run the same command again to retry them$/,
    );
    const unfinished = Number(/, (\d+) did not finish/.exec(line!)![1]);
    expect(unfinished).toBeGreaterThan(0);
    expect(unfinished).toBeLessThan(12);

    const again = await runCli(args, slow.env, 60_000);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/backfill: 12 step\(s\) x 1 token\(s\); \d+ already stored, \d+ request\(s\) done/);
  });
});
