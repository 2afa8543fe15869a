import type { AlertEventStatus } from '../db/schema/alerts.ts';
import type { AlertData } from './conditions.ts';
import type { PlannedEvent } from './transitions.ts';
import type { RuleKind } from './rules.ts';

/** The JSON body POSTed to a webhook (docs/alerts.md); `text` alone is what Slack shows. */
export interface AlertPayload {
  /** The idempotency key, also sent as the Idempotency-Key header. */
  id: string;
  rule: string;
  kind: RuleKind;
  status: AlertEventStatus;
  subject: string;
  tick: string | null;
  text: string;
  data: AlertData;
}

export function alertPayload(event: PlannedEvent): AlertPayload {
  return {
    id: event.key,
    rule: event.ruleId,
    kind: event.kind,
    status: event.status,
    subject: event.subject,
    tick: event.tick?.toISOString() ?? null,
    text: event.text,
    data: event.data,
  };
}
