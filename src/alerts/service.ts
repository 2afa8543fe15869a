import type { Database } from '../db/client.ts';
import { DATASETS, type Dataset } from '../datasets.ts';
import { describe } from '../errors.ts';
import { SNAPSHOT_CHANNEL } from '../queue/tick-notification.ts';
import type { Context } from '../runtime/context.ts';
import { startDeliverer } from './deliverer.ts';
import { literalAddressProblem } from './webhook-destination.ts';
import { evaluateAndRecord } from './evaluator.ts';
import type { AlertRule, AlertRules } from './rules.ts';

/** Every rule is evaluated this often too, so that a notification lost with a connection costs at most this. */
const SWEEP_MS = 60_000;
/** After a failed evaluation (Postgres unreachable), before it is tried again. */
const RETRY_MS = 5_000;

/** Which datasets' ticks can change what a rule sees. */
function datasetsOf(rule: AlertRule): readonly Dataset[] {
  if (rule.kind === 'price_change') return ['prices'];
  if (rule.kind === 'portfolio_change') return ['positions', 'nfts'];
  if (rule.kind === 'nft_floor_change') return ['nfts'];
  if (rule.kind === 'stale') return [rule.dataset];
  return ['positions'];
}

export interface AlertsDeps {
  context: Context;
  /** The primary: the rules' observations, their states, the outbox and its deliveries. */
  database: Database;
  /** The rules, with their webhooks (loadRulesFile: checked before anything connects). */
  rules: AlertRules;
}

/**
 * The alerts process: evaluates the rules reading a finished tick's dataset on each NOTIFY, `stale`
 * rules on a timer, and every rule on (re)connecting and once a minute; records and delivers events.
 */
export async function startAlerts({ context, database, rules }: AlertsDeps) {
  const logger = context.logger.child({ component: 'alerts' });
  const { metrics } = context;
  for (const webhook of rules.webhooks) {
    // Known now for an address; a name is checked at each delivery, by what it resolves to then.
    const refused = literalAddressProblem(webhook.url, context.options.ALERT_WEBHOOK_NETWORKS);
    if (refused)
      logger.warn({ webhook: webhook.name, refused }, 'webhook destination refused: its deliveries will fail');
  }
  const deliverer = startDeliverer({
    database,
    logger,
    metrics,
    webhooks: rules.webhooks,
    networks: context.options.ALERT_WEBHOOK_NETWORKS,
  });

  // One evaluation at a time in this process: requests that arrive meanwhile are merged into the next.
  const requested = new Set<AlertRule>();
  let running: Promise<void> | undefined;
  let closed = false;

  async function drain(): Promise<void> {
    while (requested.size > 0 && !closed) {
      const batch = rules.rules.filter((rule) => requested.has(rule));
      requested.clear();
      try {
        const recorded = await evaluateAndRecord(database, batch, new Date());
        for (const event of recorded) {
          metrics.alertEvents.inc({ kind: event.kind, status: event.status });
          logger.info(
            { rule: event.ruleId, kind: event.kind, status: event.status, subject: event.subject, event: event.key },
            'alert fired',
          );
        }
        logger.debug({ rules: batch.length, fired: recorded.length }, 'alerts evaluated');
        if (recorded.length > 0) deliverer.wake();
      } catch (error) {
        logger.warn({ err: describe(error), rules: batch.length }, 'alert evaluation failed; trying again');
        // Unref'd: once closed, a retry due later is a no-op and must not keep the process up.
        setTimeout(() => request(batch), RETRY_MS).unref();
      }
    }
  }

  function request(selected: readonly AlertRule[]): void {
    if (closed || selected.length === 0) return;
    for (const rule of selected) requested.add(rule);
    running ??= drain().finally(() => (running = undefined));
  }

  const onNotify = (payload: string) => {
    let message: { dataset?: unknown; backfill?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return;
    }
    // A backfill step writes past prices: nothing a rule reads as "now" changes.
    if (message.backfill === true || !DATASETS.includes(message.dataset as Dataset)) return;
    request(rules.rules.filter((rule) => datasetsOf(rule).includes(message.dataset as Dataset)));
  };
  // Connected (and reconnected): every rule, as notifications may have been missed meanwhile.
  const listener = await database.sql
    .listen(SNAPSHOT_CHANNEL, onNotify, () => request(rules.rules))
    .catch(async (error: unknown) => {
      closed = true;
      await deliverer.close();
      throw error;
    });

  const staleRules = rules.rules.filter((rule) => rule.kind === 'stale');
  const timers = [
    ...(staleRules.length > 0 ? [setInterval(() => request(staleRules), rules.staleCheckIntervalMs)] : []),
    setInterval(() => request(rules.rules), SWEEP_MS),
  ];
  logger.info({ rules: rules.rules.length, webhooks: rules.webhooks.map((webhook) => webhook.name) }, 'alerts running');

  return {
    /** Stops evaluating and delivering; a delivery in flight is finished and recorded first. */
    async close(): Promise<void> {
      closed = true;
      for (const timer of timers) clearInterval(timer);
      await listener.unlisten().catch(() => undefined);
      await running;
      await deliverer.close();
    },
  };
}
