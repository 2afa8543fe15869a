import { afterAll, beforeAll, expect, it } from 'vitest';
import { workerHeapFlags } from '../../src/config/memory-budget.ts';
import { addWatchedAddresses, withTransaction, writePositions } from '../../src/db/index.ts';
import { normalizePositions } from '../../src/normalize/index.ts';
import { runCli } from '../support/cli.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { startFaultServer, text, type FaultServer } from '../upstream/fault-server.ts';

// A positions answer of 160,000 small positions is 8.0 MB, within UPSTREAM_MAX_BODY_BYTES; parsed
// and written whole it took `run-once` past the heap docs/operations.md recommends (exit 134). Past
// UPSTREAM_MAX_ELEMENTS it is quarantined whole, unparsed, in a process with that heap, and closes
// nothing the wallet held. What an answer at the limits costs: bench/tools/answer-memory.ts.
const ADDRESS = `0x${'c'.repeat(64)}`;
const POSITIONS = 160_000;
let server: FaultServer;
let harness: PipelineHarness;

beforeAll(async () => {
  server = await startFaultServer();
  harness = await createPipelineHarness({ options: { UPSTREAM_BASE_URL: server.url } });
});
afterAll(async () => {
  await harness?.close();
  await server?.close();
});

it('quarantines a positions answer of 160,000 positions (8 MB) whole under the documented heap, closing nothing', async () => {
  const { database } = harness;
  await addWatchedAddresses(database, [ADDRESS], {});
  // What the wallet held at an earlier refresh: still open after the quarantined one.
  const earlier = new Date('2026-11-21T11:00:00Z');
  const held = normalizePositions(
    { data: [{ positionId: 'held', chain: 'SUI', type: 'AMM' }] },
    {
      owner: ADDRESS,
      snapshotAt: earlier,
      fetchedAt: earlier,
    },
  );
  await withTransaction(database, 'positions.write', (tx) =>
    writePositions(tx, held, { owner: ADDRESS, snapshotAt: earlier, complete: true }),
  );
  const elements = Array.from({ length: POSITIONS }, (_, i) => `{"positionId":"p${i}","chain":"SUI","type":"AMM"}`);
  const body = `{"data":[${elements.join(',')}]}`;
  expect(body.length).toBeGreaterThan(7_900_000);
  expect(body.length).toBeLessThan(harness.options.UPSTREAM_MAX_BODY_BYTES);
  server.fallback(text(200, body, { 'content-type': 'application/json' }));

  const result = await runCli(['run-once', '--datasets', 'positions'], {
    ...harness.env,
    UPSTREAM_BASE_URL: server.url,
    NODE_OPTIONS: workerHeapFlags().join(' '),
  });

  expect({ code: result.code, signal: result.signal }, result.stderr.slice(-2000)).toEqual({ code: 0, signal: null });
  expect(result.stdout).toMatch(/positions +1 +0 +1 +0 +0/);
  const quarantined = await database.sql`select reason, length(body) as length from quarantined_payloads`;
  expect(quarantined).toEqual([
    {
      reason: expect.stringMatching(/answer of more than 100000 JSON values \(UPSTREAM_MAX_ELEMENTS; \d+ bytes\)/),
      length: body.length,
    },
  ]);
  const positions = await database.sql`select position_id, closed_at from positions where owner = ${ADDRESS}`;
  expect(positions).toEqual([{ position_id: 'held', closed_at: null }]);
  const runs = await database.sql`select status, error from ingestion_runs where dataset = 'positions'`;
  expect(runs).toEqual([{ status: 'quarantined', error: quarantined[0]!.reason }]);
});

it('refuses to run workers in the documented heap with limits that let through answers it cannot hold', async () => {
  const result = await runCli(['run-once', '--datasets', 'positions'], {
    ...harness.env,
    UPSTREAM_BASE_URL: server.url,
    UPSTREAM_MAX_ELEMENTS: '1000000',
    NODE_OPTIONS: workerHeapFlags().join(' '),
  });
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(
    /UPSTREAM_MAX_BODY_BYTES \(8388608\) and UPSTREAM_MAX_ELEMENTS \(1000000\) let through answers that need about \d+ MB of heap, and this process has 240 MB/,
  );
  expect(await harness.database.sql`select count(*)::int as runs from ingestion_runs`).toEqual([{ runs: 1 }]);
});
