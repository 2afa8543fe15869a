import { afterAll, beforeAll, expect, it } from 'vitest';
import { answerBudgetBytes, answerHeapBytes } from '../../src/config/memory-budget.ts';
import { positionJobs } from '../../src/scheduler/job-builders.ts';
import { startScriptedPipeline, type ScriptedPipeline } from '../support/scripted-upstream.ts';

// The answers a process holds share one budget (src/upstream/answer-budget.ts): a body is decoded
// only once its share is free, and the share is given back when its job is done with it, whatever
// became of it (stored, quarantined whole, failed). Here every stored answer takes more than half the
// budget, so one share not given back stops the next stored answer for ever: each one after a
// quarantine or a failure shows that the share of that one came back.
const LIMITS = { UPSTREAM_MAX_BODY_BYTES: '65536', UPSTREAM_MAX_ELEMENTS: '1000', JOB_ATTEMPTS: '1' };
const ADDRESS = `0x${'b'.repeat(64)}`;
let pipeline: ScriptedPipeline;

/** 240 positions (962 values) and a field of padding: 60,000 bytes, nearly the whole budget. */
const LIST = Array.from({ length: 240 }, (_, i) => `{"positionId":"p${i}","chain":"SUI","type":"AMM"}`).join(',');
const POSITIONS = `{"pad":"${'x'.repeat(60_000 - LIST.length - 20)}","data":[${LIST}]}`;
/** Past UPSTREAM_MAX_ELEMENTS: quarantined whole. */
const TOO_MANY = `{"data":[${Array.from({ length: 300 }, (_, i) => `{"positionId":"p${i}","chain":"SUI","type":"AMM"}`).join(',')}]}`;
/** An answer without its list, of about 40 KB: quarantined whole. */
const LISTLESS = `{"data":"${'x'.repeat(40_000)}"}`;

beforeAll(async () => {
  pipeline = await startScriptedPipeline(LIMITS);
});
afterAll(() => pipeline?.close());

it('gives every answer its share of the budget back: stored, quarantined or failed', async () => {
  const budget = answerBudgetBytes({ UPSTREAM_MAX_BODY_BYTES: 65536, UPSTREAM_MAX_ELEMENTS: 1000 });
  // Any share left held (the smallest here: the 14 KB answer past the cap, 43 KB) stops the next one.
  expect(POSITIONS).toHaveLength(60_000);
  expect(budget - answerHeapBytes(POSITIONS.length, 963)).toBeLessThan(answerHeapBytes(TOO_MANY.length, 0));
  const steps: { body: string; status?: number; state: string }[] = [
    { body: POSITIONS, state: 'completed' },
    { body: POSITIONS, state: 'completed' },
    { body: TOO_MANY, state: 'completed' },
    { body: POSITIONS, state: 'completed' },
    { body: LISTLESS, state: 'completed' },
    { body: POSITIONS, state: 'completed' },
    { body: LISTLESS, status: 500, state: 'failed' },
    { body: POSITIONS, state: 'completed' },
  ];
  const outcomes: string[] = [];
  for (const [minute, step] of steps.entries()) {
    pipeline.upstream.fallback((res) => {
      res.writeHead(step.status ?? 200, { 'content-type': 'application/json' });
      res.end(step.body);
    });
    const tick = new Date(Date.UTC(2026, 10, 21, 12, minute));
    const [planned] = positionJobs(
      [{ address: ADDRESS, chain: null, protocols: null, nftChain: 'ALL', includePnl: false }],
      tick,
      false,
    );
    const { state } = await pipeline.runJob('positions', planned!);
    outcomes.push(state);
  }
  expect(outcomes).toEqual(steps.map((step) => step.state));
  const runs = await pipeline.harness.database
    .sql`select status, count(*)::int as runs from ingestion_runs group by 1 order by 1`;
  expect(runs).toEqual([
    { status: 'failed', runs: 1 },
    { status: 'quarantined', runs: 2 },
    { status: 'succeeded', runs: 5 },
  ]);
});
