import { afterAll, beforeAll, expect, it } from 'vitest';
import { toWebhook } from '../../src/alerts/rules.ts';
import { recordEvents } from '../../src/alerts/store.ts';
import type { PlannedEvent } from '../../src/alerts/transitions.ts';
import { loadAlertsSection, renderAlertsSection } from '../../src/ops/status-page-alerts.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

let database: TestDatabase;
const slack = toWebhook({ url: 'https://hooks.slack.com/services/T0/B0/secret', name: 'slack' });
const pager = toWebhook({ url: 'https://pager.example/hook' });

const event = (key: string, text: string): PlannedEvent => ({
  key,
  ruleId: 'prices-stale',
  kind: 'stale',
  status: 'firing',
  subject: 'prices',
  tick: new Date('2026-11-21T12:00:00Z'),
  text,
  data: {},
});

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

it('shows the recent events with their delivery state, and the counts', async () => {
  const empty = renderAlertsSection(await loadAlertsSection(database, 3_000)).text;
  expect(empty).toContain('No alert events yet');
  expect(empty).toContain('<h2>Alerts</h2>');

  await recordEvents(database.sql, [event('k1', 'prices is stale <b>now</b>')], [slack, pager]);
  await recordEvents(database.sql, [event('k2', 'nfts is stale')], [slack]);
  await database.sql`update alert_events set state = 'delivered', attempts = 1 where event_key = 'k1' and webhook = ${slack.id}`;
  await database.sql`update alert_events set attempts = 3, last_error = 'HTTP 503: busy' where event_key = 'k1' and webhook = ${pager.id}`;
  await database.sql`update alert_events set state = 'failed', attempts = 1, last_error = 'HTTP 404: no such hook' where event_key = 'k2'`;

  const section = await loadAlertsSection(database, 3_000);
  expect(section.ok && section.value.counts).toEqual({ pending: 1, failing: 1, deliveredLastDay: 1, failedLastDay: 1 });
  const page = renderAlertsSection(section).text;
  expect(page).toContain('<section id="alerts" class="over-budget"><h2>Alerts: deliveries failing</h2>');
  expect(page).toContain('Not delivered yet: 1 (1 failing, being retried) · last 24 hours: 1 delivered, 1 failed');
  const row = (key: string, webhook: string) =>
    page.match(new RegExp(`<tr data-event="${key}"[^]*?</tr>`, 'g'))!.find((tr) => tr.includes(`<td>${webhook}</td>`))!;
  expect(row('k1', 'slack')).toContain('<span class="pill fits">delivered</span>');
  expect(row('k1', 'pager.example')).toContain('<span class="pill retrying">failing, retried</span>');
  expect(row('k1', 'pager.example')).toContain('HTTP 503: busy');
  expect(row('k2', 'slack')).toContain('<span class="pill failed">failed</span>');
  // Texts are escaped; webhook URLs are not stored, so never shown.
  expect(page).toContain('prices is stale &lt;b&gt;now&lt;/b&gt;');
  expect(page).not.toContain('secret');
});

it('says when the outbox cannot be read, without failing the page', async () => {
  const closed = await createTestDatabase({ migrate: false });
  await closed.drop();
  const section = await loadAlertsSection(closed, 3_000);
  expect(section.ok).toBe(false);
  expect(renderAlertsSection(section).text).toMatch(/<p class="error">Unavailable: .+<\/p>/);
});
