import { formatTime } from '../alerts/format.ts';
import { loadAlertDeliveryCounts, loadRecentAlertEvents, type AlertEventRow } from '../alerts/store.ts';
import type { Database } from '../db/client.ts';
import { loadSection } from './deadline.ts';
import { html, type Html } from './html.ts';

const RECENT_EVENTS = 20;

/**
 * The status page's "Alerts" section, loaded within `timeoutMs` (a failure is the section's alone):
 * the outbox's delivery counts and its newest events, one row per webhook, newest first.
 */
export function loadAlertsSection(database: Database, timeoutMs: number) {
  const load = async () => {
    const [counts, recent] = await Promise.all([
      loadAlertDeliveryCounts(database.sql),
      loadRecentAlertEvents(database.sql, RECENT_EVENTS),
    ]);
    return { counts, recent };
  };
  return loadSection(load, timeoutMs, 'Postgres');
}
type AlertsSection = Awaited<ReturnType<typeof loadAlertsSection>>;

/** A delivery's state as a pill: delivered, failing (pending after a failed attempt), pending, failed. */
function deliveryPill(event: AlertEventRow): Html {
  if (event.state === 'delivered') return html`<span class="pill fits">delivered</span>`;
  if (event.state === 'failed') return html`<span class="pill failed">failed</span>`;
  if (event.attempts > 0) return html`<span class="pill retrying">failing, retried</span>`;
  return html`<span class="pill">pending</span>`;
}

function body(alerts: AlertsSection): Html {
  if (!alerts.ok) return html`<p class="error">Unavailable: ${alerts.error}</p>`;
  const { counts, recent } = alerts.value;
  const summary = html`<p class="alert-counts" data-pending="${counts.pending}" data-failing="${counts.failing}">Not delivered yet: ${counts.pending} (${counts.failing} failing, being retried) · last 24 hours: ${counts.deliveredLastDay} delivered, ${counts.failedLastDay} failed</p>`;
  if (recent.length === 0) {
    return html`${summary}<p class="muted">No alert events yet (<span class="mono">chaintap alerts --rules FILE</span>, or ALERT_RULES for <span class="mono">chaintap start</span>).</p>`;
  }
  const rows = recent.map(
    (event) =>
      html`<tr data-event="${event.eventKey}" data-state="${event.state}"><td>${formatTime(event.createdAt)}</td><td class="mono">${event.ruleId}</td><td>${event.status}</td><td class="truncate">${event.text}</td><td>${event.webhookName}</td><td>${deliveryPill(event)}</td><td class="num">${event.attempts}</td><td class="truncate">${event.lastError ?? ''}</td></tr>`,
  );
  return html`${summary}<table><thead><tr><th>recorded</th><th>rule</th><th>status</th><th>event</th><th>webhook</th><th>delivery</th><th class="num">attempts</th><th>last error</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The whole `<section>`, for the status page. */
export function renderAlertsSection(alerts: AlertsSection): Html {
  const failing = alerts.ok && alerts.value.counts.failing + alerts.value.counts.failedLastDay > 0;
  return html`<section id="alerts"${failing ? html` class="over-budget"` : ''}><h2>${failing ? 'Alerts: deliveries failing' : 'Alerts'}</h2>${body(alerts)}</section>`;
}
