import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { runCycle } from '../../src/cli/run-cycle.ts';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import type { Dataset } from '../../src/datasets.ts';
import { floorToMinute } from '../../src/scheduler/cron-slots.ts';
import { startChaintap, waitFor, type ChaintapProcess } from '../support/fault-processes.ts';
import { createPipelineHarness, WORLD_TIME, type PipelineHarness, cycleDeps } from '../support/pipeline.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { coin } from '../support/coins.ts';

// `chaintap alerts` processes, as users run them, against ticks written by real cycles (producer,
// queues, workers, simulated upstream) and a webhook receiver that deduplicates by Idempotency-Key:
// every event is processed by the receiver once, whether the webhook refuses the first attempts, the
// alerts process is killed (SIGKILL) between sending an event and recording it, or two alerts
// processes run at once.
const ADDRESS = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const HOUR = 3600_000;
const ALL: Dataset[] = ['prices', 'positions', 'nfts'];

let harness: PipelineHarness;
let receiver: WebhookReceiver;
let folder: string;
let rulesFile: string;
const processes: ChaintapProcess[] = [];

const deps = () => cycleDeps(harness);

/** A cycle at `tick` with the simulated world at that time. */
async function cycle(tick: Date, datasets: Dataset[] = ALL): Promise<void> {
  harness.simulator.setClockOffset(tick.getTime() - WORLD_TIME);
  const outcome = await runCycle(deps(), { tick, datasets });
  expect(outcome.complete).toBe(true);
}

async function startAlerts(name: string, flags: string[] = []): Promise<ChaintapProcess> {
  const env = { ...harness.env, LOG_LEVEL: 'debug', OPS_PORT: '0', ALERT_WEBHOOK_NETWORKS: 'loopback' };
  const child = startChaintap(name, ['alerts', '--rules', rulesFile, ...flags], env);
  processes.push(child);
  await child.waitForLine(/"msg":"alerts running"/, 60_000);
  return child;
}

interface Row {
  key: string;
  rule: string;
  status: string;
  state: string;
  attempts: number;
}
const rows = () =>
  harness.database.sql<Row[]>`
    select event_key as key, rule_id as rule, status, state, attempts from alert_events order by created_at, event_key`;

const allDelivered = (what: string, timeoutMs = 60_000) =>
  waitFor(
    what,
    async () => {
      const all = await rows();
      return all.length > 0 && all.every((row) => row.state === 'delivered');
    },
    timeoutMs,
  );

/** Log lines of `message` per event key, across processes. */
function logged(children: ChaintapProcess[], message: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const child of children) {
    for (const line of child.lines) {
      if (!line.includes(`"msg":"${message}"`)) continue;
      const { event } = JSON.parse(line) as { event: string };
      counts.set(event, (counts.get(event) ?? 0) + 1);
    }
  }
  return counts;
}

beforeAll(async () => {
  harness = await createPipelineHarness();
  receiver = await startWebhookReceiver();
  folder = mkdtempSync(join(tmpdir(), 'chaintap-alert-delivery-'));
  rulesFile = join(folder, 'rules.yaml');
  writeFileSync(
    rulesFile,
    `webhooks:
  - url: ${receiver.url}
stale_check_interval: 1s
rules:
  - { id: prices-stale, kind: stale, dataset: prices, max_age: 10m }
  - { id: sui-move, kind: price_change, token: "0x2::sui::SUI", window: 1h, percent: 0.0001 }
  - { id: coin1-move, kind: price_change, token: "${coin(1)}", window: 1h, percent: 0.0001 }
  - { id: coin2-move, kind: price_change, token: "${coin(2)}", window: 1h, percent: 0.0001 }
  - { id: opened, kind: position_opened, address: "${ADDRESS}" }
  - { id: closed, kind: position_closed, address: "${ADDRESS}" }
`,
  );
  await addWatchedTokens(harness.database, ['0x2::sui::SUI', coin(1), coin(2)]);
  await addWatchedAddresses(harness.database, [ADDRESS], {});
  await cycle(new Date(WORLD_TIME), ['prices', 'positions']);
});

afterEach((context) => {
  if (context.task.result?.state === 'fail') {
    for (const child of processes) console.log(`--- ${child.name}\n${child.lines.slice(-30).join('\n')}`);
  }
});

afterAll(async () => {
  await Promise.all(processes.map((child) => child.stop('SIGKILL')));
  await receiver?.close();
  await harness?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

it('a staleness episode alerts once, delivered once although the webhook refuses the first attempts', async () => {
  receiver.refuseFirst(2);
  // This one also serves /metrics (--ops).
  const first = await startAlerts('alerts-1', ['--ops']);
  await allDelivered('the stale alert delivered');
  // The timer evaluated the stale rule every second meanwhile; the episode is still one event.
  await first.waitForLine(/"msg":"alerts evaluated"/);
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const all = await rows();
  expect(all.map((row) => [row.rule, row.status, row.state, row.attempts])).toEqual([
    ['prices-stale', 'firing', 'delivered', 3],
  ]);
  const key = all[0]!.key;
  expect(receiver.requests.filter((request) => request.key === key).map((request) => request.status)).toEqual([
    503, 503, 200,
  ]);
  expect([...receiver.processed.keys()]).toEqual([key]);
  expect(receiver.processed.get(key)).toMatchObject({ id: key, rule: 'prices-stale', kind: 'stale', status: 'firing' });
  expect(first.lines.filter((line) => line.includes('"msg":"alert delivery failed; retrying"'))).toHaveLength(2);
  receiver.refuseFirst(0);

  const { url } = JSON.parse(await first.waitForLine(/"msg":"ops server listening"/)) as { url: string };
  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(metrics).toContain('chaintap_alert_events_total{kind="stale",status="firing"} 1');
  expect(metrics).toContain('chaintap_alert_deliveries_total{outcome="retrying"} 2');
  expect(metrics).toContain('chaintap_alert_deliveries_total{outcome="delivered"} 1');
  expect(metrics).toMatch(/chaintap_alert_events_failing \d/);
});

it('SIGKILL between sending an event and recording it: sent again after a restart, processed once', async () => {
  const [first] = processes;
  const held = receiver.holdNext();
  await cycle(new Date(WORLD_TIME + HOUR), ['prices', 'positions']);
  // The receiver has processed the first event of the tick and not answered yet: the sender waits.
  const { key, release } = await held;
  const exit = await first!.stop('SIGKILL');
  expect(exit.signal).toBe('SIGKILL');
  release();
  const [killed] = await harness.database.sql<Row[]>`
    select state, attempts from alert_events where event_key = ${key}`;
  expect(killed).toEqual({ state: 'pending', attempts: 0 });
  // The killed process's claims keep their leases (30 s, docs/alerts.md): no other process sends
  // them before. Here the leases run out now instead of in 30 s (the test's one shortcut).
  const leased = await harness.database.sql<{ key: string }[]>`
    update alert_events set lease_until = now()
    where state = 'pending' and lease_until > now() + interval '20 seconds'
    returning event_key as key`;
  expect(leased.map((row) => row.key)).toContain(key);

  // Two processes take over together.
  const [second, third] = await Promise.all([startAlerts('alerts-2'), startAlerts('alerts-3')]);
  // Each evaluates every rule once connected, recording what the killed process had not: until then
  // the rows it did record may all be delivered already (a slow machine showed 4 of them, and the
  // rest came during the next test).
  await Promise.all([second!, third!].map((child) => child.waitForLine(/"msg":"alerts evaluated"/)));
  await allDelivered('every event delivered after the restart');
  // A process logs a delivery just after it records it: wait for the held event's line too.
  await waitFor('the held event logged as delivered', async () =>
    logged([second!, third!], 'alert delivered').has(key),
  );
  const all = await rows();
  expect(all.length).toBeGreaterThan(4);
  expect(new Set(all.map((row) => row.key)).size).toBe(all.length);
  // The receiver processed each event once, and got the held one twice.
  expect([...receiver.processed.keys()].sort()).toEqual(all.map((row) => row.key).sort());
  expect(receiver.receivedCount(key)).toBe(2);
  // Sent more often than recorded only when the killed process had sent it (its two lanes).
  const unrecordedSends = all.reduce((sum, row) => sum + receiver.receivedCount(row.key) - row.attempts, 0);
  expect(unrecordedSends).toBeGreaterThanOrEqual(1);
  expect(unrecordedSends).toBeLessThanOrEqual(2);
  // The two new processes never both delivered one event.
  const delivered = logged([second!, third!], 'alert delivered');
  for (const [event, count] of delivered) expect(count, event).toBe(1);
  expect(delivered.has(key)).toBe(true);
});

it('two alerts processes at once: each new event recorded once, delivered once, and a re-run tick adds nothing', async () => {
  const [, second, third] = processes;
  const before = new Set((await rows()).map((row) => row.key));
  const received = receiver.requests.length;
  await cycle(new Date(WORLD_TIME + 2 * HOUR), ['prices', 'positions']);
  await waitFor('new events', async () => (await rows()).length > before.size);
  await allDelivered('the new events delivered');
  const fresh = (await rows()).filter((row) => !before.has(row.key));
  expect(fresh.length).toBeGreaterThan(3);
  expect(fresh.every((row) => row.attempts === 1)).toBe(true);
  // A process logs an event just after it records it (a loaded machine showed the row first).
  await waitFor('the new events logged as fired and delivered', () => {
    const [firedLines, deliveredLines] = ['alert fired', 'alert delivered'].map((m) => logged([second!, third!], m));
    return fresh.every((row) => firedLines!.has(row.key) && deliveredLines!.has(row.key));
  });
  // Both evaluated the tick (each got the NOTIFY); one recorded each event, one sent it.
  const fired = logged([second!, third!], 'alert fired');
  const delivered = logged([second!, third!], 'alert delivered');
  for (const row of fresh) {
    expect(fired.get(row.key), row.key).toBe(1);
    expect(delivered.get(row.key), row.key).toBe(1);
  }
  expect(receiver.requests.length - received).toBe(fresh.length);

  // The same tick again (its jobs dropped, so it is fetched and written again, and announced).
  // Evaluations of more than the one stale rule its timer evaluates: those a NOTIFY asked for.
  const evaluated = (child: ChaintapProcess) =>
    child.lines.filter((line) => line.includes('"msg":"alerts evaluated"') && !line.includes('"rules":1,')).length;
  const evaluations = [evaluated(second!), evaluated(third!)];
  for (const queue of Object.values(harness.queues)) await queue.obliterate({ force: true });
  await cycle(new Date(WORLD_TIME + 2 * HOUR), ['prices', 'positions']);
  await waitFor(
    'both processes evaluated the re-run tick',
    () => evaluated(second!) > evaluations[0]! && evaluated(third!) > evaluations[1]!,
  );
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect((await rows()).length).toBe(before.size + fresh.length);
  expect(receiver.requests.length - received).toBe(fresh.length);
});

it('the staleness episode ends when a fresh tick arrives: one resolved event, delivered once', async () => {
  await cycle(floorToMinute(new Date()), ['prices']);
  await waitFor('the stale episode resolved', async () =>
    (await rows()).some((row) => row.rule === 'prices-stale' && row.status === 'resolved'),
  );
  await allDelivered('the resolved event delivered');
  const stale = (await rows()).filter((row) => row.rule === 'prices-stale');
  expect(stale.map((row) => row.status)).toEqual(['firing', 'resolved']);
  const resolved = stale[1]!;
  expect(resolved.key).toBe(`${stale[0]!.key}:resolved`);
  expect(receiver.receivedCount(resolved.key)).toBe(1);
  expect(receiver.processed.get(resolved.key)?.text).toMatch(/^\[prices-stale\] Resolved: prices is fresh/);
});
