import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { runCli } from '../support/cli.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { countRows } from '../support/table-digest.ts';

const SUI = '0x2::sui::SUI';
const USDC = `0x${'d'.repeat(64)}::usdc::USDC`;
const ADDRESS = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
/** Nothing listens there: a command that opens Postgres fails. */
const NO_DATABASE = 'postgres://postgres@127.0.0.1:1/chaintap';

interface ProbeJson {
  ready: boolean;
  probes: {
    operation: string;
    target: string;
    status: string;
    elements: number | null;
    drifts: { field: string; shape: string; count: number }[];
    quarantined: { index: number | null; reason: string }[];
  }[];
}

let harness: PipelineHarness;
beforeAll(async () => {
  // The probe judges prices by the time it runs (price-plausibility.ts): the simulated upstream
  // answers at the real time, not at the harness's fixed world time.
  harness = await createPipelineHarness({ simulator: { world: { realShapes: true }, fixedTimeMs: undefined } });
  await addWatchedTokens(harness.database, [SUI, USDC]);
  await addWatchedAddresses(harness.database, [ADDRESS], {});
});
afterAll(async () => harness?.close());

const probe = (args: string[], env: Record<string, string> = {}) =>
  runCli(['probe', ...args], { ...harness.env, UPSTREAM_MAX_RETRIES: '1', ...env });

/** Runs `work` with the simulator's faults set, and clears them afterwards. */
async function withFaults<T>(faults: Parameters<PipelineHarness['simulator']['setFaults']>[0], work: () => Promise<T>) {
  harness.simulator.setFaults(faults);
  try {
    return await work();
  } finally {
    harness.simulator.setFaults({ malformedRate: 0, error5xxRate: 0 });
  }
}

describe('chaintap probe', () => {
  it('reads the watchlist, reports real-shape drifts per operation, exits 0 and writes nothing', async () => {
    const before = await countRows(harness.database);
    harness.simulator.resetStats();
    const result = await probe([]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // One call per operation, the watched address for positions and NFTs.
    expect(harness.simulator.stats().requests).toBe(4);
    expect(result.stdout).toContain('prices (2 token(s)): read 2 element(s)');
    expect(result.stdout).toMatch(new RegExp(`positions ${ADDRESS}: read \\d+ element\\(s\\), \\d+ field/shape drift`));
    expect(result.stdout).toMatch(/positions\.fee\s+value_object\s+\d+/);
    expect(result.stdout).toMatch(/positions\.current\.tokens\.amount\s+numeric_string\s+\d+/);
    expect(result.stdout).toContain(`nfts ${ADDRESS}: read`);
    expect(result.stdout).toContain('protocols (all): read');
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(
      /^verdict: ready: every answer can be read, drift absorbed/,
    );
    expect(await countRows(harness.database)).toEqual(before);
  });

  it('prints the same findings as JSON with --json', async () => {
    const result = await probe(['--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as ProbeJson;
    expect(report.ready).toBe(true);
    expect(report.probes.map((p) => [p.operation, p.status])).toEqual([
      ['prices', 'read'],
      ['positions', 'read'],
      ['nfts', 'read'],
      ['protocols', 'read'],
    ]);
    const positions = report.probes[1]!;
    expect(positions.target).toBe(ADDRESS);
    expect(positions.elements).toBeGreaterThan(0);
    expect(positions.quarantined).toEqual([]);
    expect(positions.drifts).toContainEqual({
      field: 'positions.fee',
      shape: 'value_object',
      count: expect.any(Number),
    });
  });

  it('runs without any database when --address and --tokens are given', async () => {
    const result = await probe(['--address', ADDRESS, '--tokens', SUI, USDC, '--json'], { DATABASE_URL: NO_DATABASE });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as ProbeJson;
    expect(report.probes.map((p) => [p.operation, p.target, p.status])).toEqual([
      ['prices', '(2 token(s))', 'read'],
      ['positions', ADDRESS, 'read'],
      ['nfts', ADDRESS, 'read'],
      ['protocols', '(all)', 'read'],
    ]);
    // Without the tokens, it needs the watchlist: the closed port says so.
    const needsDatabase = await probe(['--address', ADDRESS], { DATABASE_URL: NO_DATABASE });
    expect(needsDatabase.code).toBe(1);
    expect(needsDatabase.stderr).toMatch(/ECONNREFUSED/);
  });

  it('exits 2 with a clear message when the key is rejected, and writes nothing', async () => {
    const before = await countRows(harness.database);
    const result = await probe([], { UPSTREAM_API_KEY: 'not-the-key' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the upstream rejected the API key (HTTP 403); check UPSTREAM_API_KEY');
    expect(result.stderr).not.toContain('not-the-key');
    expect(await countRows(harness.database)).toEqual(before);
  });

  it('exits 1 and names what would be quarantined when answers are malformed, and writes nothing', async () => {
    const before = await countRows(harness.database);
    const result = await withFaults({ malformedRate: 1 }, () => probe([]));
    expect(result.code).toBe(1);
    // Wrongly shaped JSON would be quarantined whole; a body that is not JSON fails after the retries.
    expect(result.stdout).toMatch(/the answer cannot be read: it would be quarantined whole|FAILED: .*not JSON/);
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^verdict: NOT READY: /);
    expect(await countRows(harness.database)).toEqual(before);
  });

  it('reports a 5xx after the retries per operation and exits 1', async () => {
    const result = await withFaults({ error5xxRate: 1 }, () => probe(['--address', ADDRESS, '--tokens', SUI]));
    expect(result.code).toBe(1);
    for (const operation of ['prices (1 token(s))', `positions ${ADDRESS}`, `nfts ${ADDRESS}`, 'protocols (all)']) {
      expect(result.stdout).toMatch(
        new RegExp(`${operation.replace(/[()]/g, '\\$&')}: FAILED: .*HTTP 50\\d.*\\(2 attempt\\(s\\)\\)`),
      );
    }
    expect(result.stdout).toContain('verdict: NOT READY: 4 call(s) failed');
  });
});
