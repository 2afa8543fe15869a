import type { Database } from '../client.ts';
import { runSql } from '../query.ts';

/**
 * Retention of the alerts outbox (`alert_events`), run by the daily housekeeping, which sits below
 * src/alerts in the layers; the outbox's other queries are in src/alerts/store.ts.
 */

/**
 * Deletes the deliveries recorded `olderThanDays` before `now` that are delivered or given up
 * (ALERT_EVENTS_RETENTION_DAYS; 0 keeps all). A pending one is never deleted, however old: it is
 * still to send (or waits for a webhook removed from the rules file, docs/alerts.md).
 */
export async function pruneAlertEvents(database: Database, olderThanDays: number, now: Date): Promise<number> {
  if (olderThanDays <= 0) return 0;
  const cutoff = new Date(now.getTime() - olderThanDays * 86_400_000);
  return (
    await runSql(database, 'alert_events.prune')`
      delete from alert_events where created_at < ${cutoff} and state <> 'pending'`
  ).count;
}
