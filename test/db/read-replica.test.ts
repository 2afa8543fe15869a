import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfill } from '../../src/cli/backfill-prices.ts';
import { READ_APPLICATION_NAME } from '../../src/cli/read-database.ts';
import { runCycle } from '../../src/cli/run-cycle.ts';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { ensureDatabase, runMigrations } from '../../src/db/migrate.ts';
import { createOpsServer, type OpsServer } from '../../src/ops/server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../alerts/webhook-receiver.ts';
import { ADDRESS, CYCLE_TICKS, HOUR, SUI, TOKENS, USDC } from '../reports/report-world.ts';
import { runCli } from '../support/cli.ts';
import { startChaintap, waitFor } from '../support/fault-processes.ts';
import { createPipelineHarness, cycleDeps, WORLD_TIME, type PipelineHarness } from '../support/pipeline.ts';
import { startPostgresReplicaPair, type PostgresReplicaPair } from '../support/postgres-replica.ts';

/**
 * DATABASE_READ_URL against a real streaming replica: a throwaway primary filled the way chaintap
 * fills it (a price backfill and four cycles against the simulated upstream), and a hot standby of
 * it. A hot standby refuses every write, so any write path that reached it would fail these tests.
 */

let pair: PostgresReplicaPair;
let harness: PipelineHarness;
let primary: Database;
/** The read pool as chaintap opens it (application name included). */
let replica: Database;
let receiver: WebhookReceiver;
const folder = mkdtempSync(join(tmpdir(), 'chaintap-read-replica-'));
/** The primary's settings (simulator, Redis) for a `chaintap` child; with DATABASE_READ_URL when reading the replica. */
let env: Record<string, string>;
let replicaEnv: Record<string, string>;

beforeAll(async () => {
  pair = await startPostgresReplicaPair();
  const primaryUrl = pair.urlOf('primary', 'chaintap');
  await ensureDatabase(primaryUrl);
  await runMigrations(primaryUrl);
  primary = createDatabase(primaryUrl, { max: 4 });
  replica = createDatabase(pair.urlOf('replica', 'chaintap'), { max: 4, applicationName: READ_APPLICATION_NAME });
  // The simulator, Redis and queues of a harness; its rows go to the primary instead of its own database.
  harness = await createPipelineHarness({ options: { LOG_LEVEL: 'warn', DATABASE_URL: primaryUrl } });
  env = harness.env;
  replicaEnv = { ...env, DATABASE_READ_URL: pair.urlOf('replica', 'chaintap') };
  await addWatchedTokens(primary, TOKENS);
  await addWatchedAddresses(primary, [ADDRESS], { includePnl: true });
  const deps = { ...cycleDeps(harness), database: primary };
  const backfill = await runBackfill(deps, {
    from: new Date(WORLD_TIME - 48 * HOUR),
    to: new Date(WORLD_TIME - 7 * HOUR),
    intervalMs: HOUR,
  });
  expect(backfill.complete).toBe(true);
  for (const tick of CYCLE_TICKS) {
    harness.simulator.setClockOffset(tick.getTime() - WORLD_TIME);
    expect((await runCycle(deps, { tick, datasets: ['prices', 'positions', 'nfts'] })).complete).toBe(true);
  }
  harness.simulator.setClockOffset(0);
  receiver = await startWebhookReceiver();
  await pair.waitForReplay();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await Promise.all([primary?.close(), replica?.close()]);
  await harness?.close();
  await pair?.destroy();
  rmSync(folder, { recursive: true, force: true });
});

/** The replica's log entries (one per statement, continuation lines included) of chaintap's read pool. */
function readPoolStatements(): string[] {
  return pair
    .replicaLog()
    .split(/\n(?=\[)/)
    .filter((entry) => entry.startsWith(`[${READ_APPLICATION_NAME}]`) && /statement:|execute/.test(entry));
}

const RANGE = ['--from', '2026-11-21T04:00:00Z', '--to', '2026-11-21T13:00:00Z', '--interval', '1h'];
const REPORTS: [string, string[]][] = [
  ['portfolio csv', ['portfolio', '--address', ADDRESS, ...RANGE]],
  ['portfolio json', ['portfolio', '--address', ADDRESS, ...RANGE, '--format', 'json']],
  ['prices csv', ['prices', '--tokens', `${SUI},${USDC}`, ...RANGE]],
];
/** Each report's output as read from the primary. */
const fromPrimary = new Map<string, string>();

/** A report's output, its generated_at (JSON's clock) left out. */
async function report(args: string[], settings: Record<string, string>): Promise<string> {
  const result = await runCli(['report', ...args], settings);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout.replace(/"generated_at":"[^"]*"/, '"generated_at":"…"');
}

function opsServer(readDatabase?: Database): OpsServer {
  return createOpsServer({
    context: harness.context,
    database: primary,
    readDatabase,
    redis: harness.connection,
    queues: harness.queues,
    now: () => new Date(WORLD_TIME + HOUR),
  });
}

async function get(server: OpsServer, url: string): Promise<string> {
  const response = await server.app.inject({ method: 'GET', url });
  expect(response.statusCode).toBe(200);
  return response.body;
}

const LAG_GAUGE = /^chaintap_database_read_replica_lag_seconds\{server="127\.0\.0\.1:\d+"\} (\S+)$/m;

describe('reports with DATABASE_READ_URL', () => {
  it('say on the replica exactly what they say on the primary, read there', async () => {
    expect(readPoolStatements()).toEqual([]);
    for (const [name, args] of REPORTS) {
      const [onPrimary, onReplica] = await Promise.all([report(args, env), report(args, replicaEnv)]);
      // Not an empty report: the cycles' figures are in it.
      expect(onPrimary.split('\n').length, name).toBeGreaterThan(10);
      expect(onReplica, name).toBe(onPrimary);
      fromPrimary.set(name, onPrimary);
    }
    const statements = readPoolStatements();
    expect(statements.some((entry) => entry.includes('position_refreshes'))).toBe(true);
    expect(statements.some((entry) => entry.includes('token_price'))).toBe(true);
  });
});

describe('the status page with a read replica', () => {
  it('renders every section from the replica, the same as from the primary, with a line on its lag', async () => {
    const onPrimary = await get(opsServer(), '/');
    const server = opsServer(replica);
    const onReplica = await get(server, '/');
    expect(onPrimary).not.toContain('id="replica"');
    const line =
      /<section id="replica"><h2>Read replica<\/h2><p class="replica" data-lag-seconds="0">(.*?)<\/p><\/section>\n/.exec(
        onReplica,
      );
    expect(line?.[1]).toBe(
      'Every section below is read from the replica (DATABASE_READ_URL): it has replayed all the primary sent.',
    );
    expect(onReplica.replace(line![0], '\n')).toBe(onPrimary);
    expect(onReplica).toContain(`data-address="${ADDRESS}"`);
    expect(onReplica).not.toContain('Unavailable');
    // The portfolio report route reads the replica too.
    const route = `/report/portfolio?address=${ADDRESS}&from=2026-11-21T04:00:00Z&to=2026-11-21T13:00:00Z&interval=1h`;
    expect(await get(server, route)).toBe(await get(opsServer(), route));
  });

  it('/metrics exports the lag gauge only with a read replica: 0 when it has replayed everything', async () => {
    expect(await get(opsServer(), '/metrics')).not.toContain('chaintap_database_read_replica_lag_seconds{');
    const metrics = await get(opsServer(replica), '/metrics');
    expect(LAG_GAUGE.exec(metrics)?.[1]).toBe('0');
  });
});

describe('alerts with DATABASE_READ_URL', () => {
  it('`chaintap alerts` observes, records and delivers on the primary; its ops server reads the replica', async () => {
    const file = join(folder, 'rules.yaml');
    writeFileSync(
      file,
      `
webhooks:
  - url: ${receiver.url}
    name: receiver
rules:
  - { id: sui-move, kind: price_change, token: "${SUI}", window: 2h, percent: 0.0001 }
  - { id: whale-value, kind: portfolio_change, address: "${ADDRESS}", window: 2h, percent: 0.0001 }
  - { id: positions-stale, kind: stale, dataset: positions, max_age: 1d }
  - { id: prices-fresh, kind: stale, dataset: prices, max_age: 3650d }
  - { id: opened, kind: position_opened, address: "${ADDRESS}" }
`,
    );
    const alerts = startChaintap('alerts', ['alerts', '--rules', file, '--ops'], {
      ...replicaEnv,
      LOG_LEVEL: 'info',
      OPS_PORT: '0',
      ALERT_WEBHOOK_NETWORKS: 'loopback',
    });
    try {
      const delivered = () => {
        if (alerts.child.exitCode !== null) throw new Error(`chaintap alerts exited with ${alerts.child.exitCode}`);
        return receiver.processed.size === 3;
      };
      await waitFor('three events delivered', delivered, 30_000).catch((error: Error) => {
        throw new Error(
          `${error.message}; received ${[...receiver.processed.values()].map((payload) => payload.rule).join(', ')}; its last lines:\n${alerts.lines.slice(-20).join('\n')}`,
        );
      });
      // Its ops server reads the replica too, and says so.
      const url = /"url":"([^"]+)"/.exec(await alerts.waitForLine(/ops server listening/))![1]!;
      expect(await (await fetch(`${url}/`)).text()).toContain('<section id="replica">');
      expect(await (await fetch(`${url}/metrics`)).text()).toMatch(LAG_GAUGE);
    } finally {
      await alerts.stop('SIGTERM');
    }
    expect([...receiver.processed.values()].map((payload) => payload.rule).sort()).toEqual([
      'positions-stale',
      'sui-move',
      'whale-value',
    ]);
    const outbox = await primary.sql<{ rule: string; state: string }[]>`
      select rule_id as rule, state from alert_events order by rule_id`;
    expect(outbox).toEqual([
      { rule: 'positions-stale', state: 'delivered' },
      { rule: 'sui-move', state: 'delivered' },
      { rule: 'whale-value', state: 'delivered' },
    ]);
    // The position rule's baseline and the open episodes: remembered on the primary.
    const [states] = await primary.sql<{ n: number }[]>`select count(*)::int as n from alert_states`;
    expect(states!.n).toBe(4);
  });
});

describe('a lagging replica', () => {
  const T2 = new Date(WORLD_TIME + 2 * HOUR);

  it('shows in the lag gauge and on the status page', async () => {
    await pair.setReplayPaused(true);
    harness.simulator.setClockOffset(T2.getTime() - WORLD_TIME);
    const deps = { ...cycleDeps(harness), database: primary };
    expect((await runCycle(deps, { tick: T2, datasets: ['prices'] })).complete).toBe(true);
    harness.simulator.setClockOffset(0);

    const server = opsServer(replica);
    let lag = 0;
    await waitFor('a lag in /metrics', async () => {
      lag = Number(LAG_GAUGE.exec(await get(server, '/metrics'))?.[1]);
      return lag > 0;
    });
    expect(await get(server, '/')).toMatch(/<p class="replica[^"]*" data-lag-seconds="[0-9.]+">.* behind the primary/);

    await pair.setReplayPaused(false);
    await pair.waitForReplay();
    await waitFor('no lag in /metrics', async () => LAG_GAUGE.exec(await get(server, '/metrics'))?.[1] === '0');
  });
});

describe('the primary stopped', () => {
  it('reports and the status page still read the replica', async () => {
    await pair.stopPrimary();
    for (const [name, args] of REPORTS) expect(await report(args, replicaEnv), name).toBe(fromPrimary.get(name));
    const page = await get(opsServer(replica), '/');
    expect(page).toContain(`data-address="${ADDRESS}"`);
    expect(page).toContain('data-dataset="prices"');
    // Everything read from Postgres is the replica's: only the primary's own checks could fail.
    expect(page).not.toContain('Unavailable');
  });
});
