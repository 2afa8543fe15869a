import type { AlertData } from './conditions.ts';
import { positionSubject } from './conditions.ts';
import { formatTime, shortAddress, shortPositionId } from './format.ts';
import type { PositionEventRule } from './rules.ts';

/**
 * Positions opened and closed: discrete events, one per position and tick. Pure: the positions come
 * in (src/alerts/observations.ts reads them), the events they make go out.
 */

/** A position of the rule's address as the `positions` table holds it. */
export interface PositionRow {
  owner: string;
  positionId: string;
  parentPositionId: string | null;
  type: string;
  chain: string;
  protocolId: string | null;
  firstSeenAt: Date;
  closedAt: Date | null;
}

export interface Occurrence {
  subject: string;
  tick: Date;
  /** What the event key derives from besides rule and subject: the tick of the opening or closing. */
  trigger: string;
  text: string;
  data: AlertData;
}

/**
 * The events of a position rule: positions first seen (opened) or closed after the baseline, the
 * tick the rule started watching from. A position closed again after reopening is a new event (its
 * closing tick differs).
 */
export function positionOccurrences(rule: PositionEventRule, rows: PositionRow[], baseline: Date): Occurrence[] {
  const opened = rule.kind === 'position_opened';
  return rows.flatMap((row) => {
    const tick = opened ? row.firstSeenAt : row.closedAt;
    if (!tick || tick.getTime() <= baseline.getTime()) return [];
    const where = [row.type, row.protocolId, row.chain].filter(Boolean).join(', ');
    const nested = row.parentPositionId ? `, inside ${shortPositionId(row.parentPositionId)}` : '';
    return [
      {
        subject: positionSubject(row.owner, row.positionId),
        tick,
        trigger: `${opened ? 'opened' : 'closed'}:${tick.toISOString()}`,
        text: `Position ${shortPositionId(row.positionId)} (${where}${nested}) of ${shortAddress(row.owner)} ${opened ? 'opened' : 'closed'} at ${formatTime(tick)}`,
        data: {
          address: row.owner,
          position_id: row.positionId,
          parent_position_id: row.parentPositionId,
          type: row.type,
          chain: row.chain,
          protocol_id: row.protocolId,
          first_seen_at: row.firstSeenAt.toISOString(),
          closed_at: row.closedAt?.toISOString() ?? null,
        },
      },
    ];
  });
}
