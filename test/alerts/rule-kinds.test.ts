import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliverer } from '../../src/alerts/deliverer.ts';
import { evaluateAndRecord } from '../../src/alerts/evaluator.ts';
import type { AlertPayload } from '../../src/alerts/store.ts';
import { parseRules } from '../../src/alerts/rules.ts';
import { runCycle } from '../../src/cli/run-cycle.ts';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { runCli } from '../support/cli.ts';
import { waitFor } from '../support/fault-processes.ts';
import { createPipelineHarness, WORLD_TIME, type PipelineHarness, cycleDeps } from '../support/pipeline.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { coin } from '../support/coins.ts';

// Every rule kind on data written by real cycles (producer, queues, workers) against the simulated
// upstream, whose world clock moves an hour between the two ticks: prices and floors move,
// positions open and close. The rules are evaluated as the alerts process does, then delivered.
const SUI = `0x${'0'.repeat(63)}2::sui::SUI`;
const ADDRESSES = [
  '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e',
  '0x1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809',
  '0x5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
];
const T0 = new Date(WORLD_TIME);
const T1 = new Date(WORLD_TIME + 3600_000);
// The ticks are days before the wall clock: the nfts data is stale for a 1d max age, fresh for 3650d.
const NOW = () => new Date();

let harness: PipelineHarness;
let receiver: WebhookReceiver;
let folder: string;
const deps = () => cycleDeps(harness);

interface EventRow {
  event_key: string;
  rule_id: string;
  status: string;
  subject: string;
  tick: Date | null;
  payload: AlertPayload;
}
const events = async (): Promise<EventRow[]> =>
  harness.database.sql<EventRow[]>`
    select event_key, rule_id, status, subject, tick, payload::text::jsonb as payload
    from alert_events order by rule_id, subject, status`.then((rows) =>
    rows.map((row) => ({ ...row, payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload })),
  );

/** The health factor of each position of an address at a tick, read straight from the view. */
async function healthAt(address: string, tick: Date): Promise<{ positionId: string; health: number }[]> {
  const rows = await harness.database.sql<{ positionId: string; health: string }[]>`
    select position_id as "positionId", health_factor::text as health
    from position_snapshots where owner = ${address} and snapshot_at = ${tick} and health_factor is not null`;
  return rows.map((row) => ({ positionId: row.positionId, health: Number(row.health) }));
}

let healthAddress: string;
let threshold: number;
let rulesText: (extra?: string) => string;

beforeAll(async () => {
  harness = await createPipelineHarness();
  receiver = await startWebhookReceiver();
  folder = mkdtempSync(join(tmpdir(), 'chaintap-alert-kinds-'));
  await addWatchedTokens(harness.database, ['0x2::sui::SUI', coin(1), coin(2)]);
  await addWatchedAddresses(harness.database, ADDRESSES, { includePnl: true });
  const outcome = await runCycle(deps(), { tick: T0, datasets: ['prices', 'positions', 'nfts'] });
  expect(outcome.complete).toBe(true);

  // The health rule watches an address holding lending positions, with a threshold just above its
  // lowest health factor: that position is below it, the others are not.
  const candidates = await Promise.all(
    ADDRESSES.map(async (address) => ({ address, health: await healthAt(address, T0) })),
  );
  const chosen = candidates.find((candidate) => new Set(candidate.health.map((h) => h.health)).size >= 2);
  expect(chosen, 'an address with two lending positions of different health factors').toBeDefined();
  healthAddress = chosen!.address;
  const sorted = chosen!.health.map((h) => h.health).sort((a, b) => a - b);
  threshold = Number(((sorted[0]! + sorted.find((h) => h > sorted[0]!)!) / 2).toFixed(6));

  rulesText = (extra = '') => `
webhooks:
  - url: ${receiver.url}
    name: test-receiver
rules:
  - { id: sui-move, kind: price_change, token: "0x2::sui::SUI", window: 1h, percent: 0.0001 }
  - { id: sui-crash, kind: price_change, token: "0x2::sui::SUI", window: 1h, percent: 90, direction: down }
  - { id: whale-value, kind: portfolio_change, address: "${ADDRESSES[0]}", window: 1h, percent: 0.0001 }
  - { id: whale-opened, kind: position_opened, address: "${ADDRESSES[0]}" }
  - { id: whale-closed, kind: position_closed, address: "${ADDRESSES[0]}" }
  - { id: health, kind: health_below, address: "${healthAddress}", threshold: ${threshold} }
  - { id: nfts-stale, kind: stale, dataset: nfts, max_age: 1d }
  - { id: prices-stale, kind: stale, dataset: prices, max_age: 3650d }
${extra}`;
});

afterAll(async () => {
  await receiver?.close();
  await harness?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('each rule kind on data made by real cycles', () => {
  it('alerts test prints what would fire at the first tick, and sends and records nothing', async () => {
    const file = join(folder, 'rules.yaml');
    writeFileSync(file, rulesText());
    const result = await runCli(['alerts', 'test', '--rules', file], harness.env);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${file}: valid, 8 rule(s), 1 webhook(s) (test-receiver)`);
    expect(result.stdout).toMatch(
      /would fire: \[nfts-stale\] nfts is stale: its newest successful tick, 2026-11-21 12:00 UTC/,
    );
    expect(result.stdout).toMatch(/would fire: \[health\] Health factor of .* below/);
    expect(result.stdout).toMatch(/not firing: prices is fresh/);
    expect(result.stdout).toMatch(/cannot tell yet: SUI has no value 1h earlier to compare with/);
    expect(result.stdout).toMatch(/first evaluation: would watch from the positions refresh of 2026-11-21 12:00 UTC/);
    expect(result.stdout).toMatch(/\n2 event\(s\) would be sent now \(nothing was sent or recorded\)/);
    const [counts] = await harness.database.sql`
      select (select count(*)::int from alert_events) as events, (select count(*)::int from alert_states) as states`;
    expect(counts).toEqual({ events: 0, states: 0 });
  });

  it('at the first tick: a stale dataset and a low health factor fire; changes have nothing to compare with yet', async () => {
    const rules = parseRules(rulesText(), 'rules.yaml');
    const recorded = await evaluateAndRecord(harness.database, rules.rules, NOW());
    const low = (await healthAt(healthAddress, T0)).filter((h) => h.health < threshold);
    expect(low.length).toBeGreaterThan(0);
    expect(recorded.map((event) => `${event.ruleId} ${event.status} ${event.subject}`).sort()).toEqual(
      [...low.map((h) => `health firing ${healthAddress}/${h.positionId}`), 'nfts-stale firing nfts'].sort(),
    );
    const stale = (await events()).find((event) => event.rule_id === 'nfts-stale')!;
    expect(stale.tick).toEqual(T0);
    expect(stale.payload).toMatchObject({
      id: stale.event_key,
      rule: 'nfts-stale',
      kind: 'stale',
      status: 'firing',
      subject: 'nfts',
      tick: T0.toISOString(),
      data: { dataset: 'nfts', newest_tick: T0.toISOString(), max_age: '1d' },
    });
    const health = (await events()).find((event) => event.rule_id === 'health')!;
    expect(health.payload.data).toMatchObject({ address: healthAddress, threshold, health_factor: low[0]!.health });
    expect(health.payload.text).toContain(`below ${threshold}`);
    // Evaluating the same data again: the episodes are open, nothing new.
    expect(await evaluateAndRecord(harness.database, rules.rules, NOW())).toEqual([]);
  });

  it('an hour later: prices, the portfolio and a floor moved, positions opened and closed', async () => {
    harness.simulator.setClockOffset(T1.getTime() - T0.getTime());
    const outcome = await runCycle(deps(), { tick: T1, datasets: ['prices', 'positions', 'nfts'] });
    expect(outcome.complete).toBe(true);
    // A collection held at both ticks, with a floor at both.
    const [collection] = await harness.database.sql<{ id: string }[]>`
      select collection_id as id from nft_holding_snapshots
      where floor_price is not null and snapshot_at in (${T0}, ${T1})
      group by collection_id having count(distinct snapshot_at) = 2 order by collection_id limit 1`;
    expect(collection).toBeDefined();
    const rules = parseRules(
      rulesText(
        `  - { id: floor, kind: nft_floor_change, collection: "${collection!.id}", window: 1h, percent: 0.0001 }`,
      ),
      'rules.yaml',
    );
    const before = new Set((await events()).map((event) => event.event_key));
    const recorded = await evaluateAndRecord(harness.database, rules.rules, NOW());
    const fresh = (await events()).filter((event) => !before.has(event.event_key));
    expect(recorded.map((event) => event.key).sort()).toEqual(fresh.map((event) => event.event_key).sort());
    const byRule = (id: string) => fresh.filter((event) => event.rule_id === id);

    // Price: the data is the two stored prices an hour apart.
    const prices = await harness.database.sql<{ price: string; price_time: Date }[]>`
      select price::text as price, price_time from token_prices where coin_type = ${SUI} order by price_time`;
    expect(prices.map((p) => p.price_time)).toEqual([T0, T1]);
    const [sui] = byRule('sui-move');
    const change = ((Number(prices[1]!.price) - Number(prices[0]!.price)) / Number(prices[0]!.price)) * 100;
    expect(sui!.payload).toMatchObject({
      kind: 'price_change',
      status: 'firing',
      subject: SUI,
      tick: T1.toISOString(),
      data: {
        value: prices[1]!.price,
        reference_value: prices[0]!.price,
        reference_at: T0.toISOString(),
        window: '1h',
      },
    });
    expect(sui!.payload.data.change_percent).toBeCloseTo(change, 3);
    expect(sui!.payload.text).toMatch(
      /^\[sui-move\] SUI (rose|fell) \d+\.\d\d % in 1h, from .* to .* \(price time 2026-11-21 13:00 UTC\)/,
    );
    expect(byRule('sui-crash')).toEqual([]);

    // Portfolio: latest_portfolio's total now against the same sum at the first tick.
    const [portfolio] = byRule('whale-value');
    const [latest] = await harness.database.sql<{ total: string }[]>`
      select total_value::text as total from latest_portfolio where owner = ${ADDRESSES[0]}`;
    expect(portfolio!.payload.data).toMatchObject({
      value: latest!.total,
      at: T1.toISOString(),
      reference_at: T0.toISOString(),
    });

    // Floor: the collection's floor at both ticks.
    const floors = await harness.database.sql<{ floor: string }[]>`
      select distinct floor_price::text as floor, snapshot_at from nft_holding_snapshots
      where collection_id = ${collection!.id} order by snapshot_at`;
    const [floor] = byRule('floor');
    expect(floor!.payload.data).toMatchObject({ reference_value: floors[0]!.floor, value: floors[1]!.floor });

    // Positions: exactly those first seen, or closed, at the second tick.
    const opened = await harness.database.sql<{ id: string }[]>`
      select position_id as id from positions where owner = ${ADDRESSES[0]} and first_seen_at = ${T1} order by 1`;
    const closed = await harness.database.sql<{ id: string }[]>`
      select position_id as id from positions where owner = ${ADDRESSES[0]} and closed_at = ${T1} order by 1`;
    expect(opened.length + closed.length).toBeGreaterThan(0);
    const subjects = (id: string) =>
      byRule(id)
        .map((event) => event.subject)
        .sort();
    expect(subjects('whale-opened')).toEqual(opened.map((row) => `${ADDRESSES[0]}/${row.id}`).sort());
    expect(subjects('whale-closed')).toEqual(closed.map((row) => `${ADDRESSES[0]}/${row.id}`).sort());
    for (const event of byRule('whale-closed')) expect(event.payload.text).toMatch(/closed at 2026-11-21 13:00 UTC$/);

    // Health: each position below the threshold at T1 that was not already is a new episode; each one
    // that was and no longer is (recovered, or closed) is resolved.
    const lowBefore = new Set(
      (await healthAt(healthAddress, T0)).filter((h) => h.health < threshold).map((h) => h.positionId),
    );
    const lowNow = new Set(
      (await healthAt(healthAddress, T1)).filter((h) => h.health < threshold).map((h) => h.positionId),
    );
    const health = byRule('health')
      .map((event) => `${event.status} ${event.subject}`)
      .sort();
    expect(health).toEqual(
      [
        ...[...lowNow].filter((id) => !lowBefore.has(id)).map((id) => `firing ${healthAddress}/${id}`),
        ...[...lowBefore].filter((id) => !lowNow.has(id)).map((id) => `resolved ${healthAddress}/${id}`),
      ].sort(),
    );

    // Still stale: the same episode, no new event.
    expect(byRule('nfts-stale')).toEqual([]);
    expect(byRule('prices-stale')).toEqual([]);
  });

  it('re-running the tick and evaluating again records nothing new', async () => {
    const before = await events();
    for (const queue of Object.values(harness.queues)) await queue.obliterate({ force: true });
    const outcome = await runCycle(deps(), { tick: T1, datasets: ['prices', 'positions', 'nfts'] });
    expect(outcome.complete).toBe(true);
    const rules = parseRules(rulesText(), 'rules.yaml');
    expect(await evaluateAndRecord(harness.database, rules.rules, NOW())).toEqual([]);
    expect(await events()).toEqual(before);
  });

  it('delivers every recorded event to the webhook once, with its Idempotency-Key', async () => {
    const rules = parseRules(rulesText(), 'rules.yaml');
    const deliverer = startDeliverer({
      database: harness.database,
      logger: harness.context.logger,
      metrics: harness.context.metrics,
      webhooks: rules.webhooks,
      networks: ['loopback'],
    });
    try {
      const all = await events();
      await waitFor('every event delivered', async () => {
        const [row] = await harness.database
          .sql`select count(*)::int as n from alert_events where state <> 'delivered'`;
        return row!.n === 0;
      });
      expect([...receiver.processed.keys()].sort()).toEqual(all.map((event) => event.event_key).sort());
      expect(receiver.requests.length).toBe(all.length);
      for (const event of all) expect(receiver.processed.get(event.event_key)).toEqual(event.payload);
    } finally {
      await deliverer.close();
    }
    // The webhook's URL is in neither the outbox nor the logs: a Slack URL is its secret.
    const [dump] = await harness.database.sql`select string_agg(a::text, ' ') as text from alert_events a`;
    expect(dump!.text).not.toContain('secret-path');
    expect(harness.logs.join('')).not.toContain('secret-path');
  });
});
