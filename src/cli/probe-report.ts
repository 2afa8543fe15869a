import type { UpstreamOperation } from '../datasets.ts';
import type { SchemaDrift } from '../db/schema/rows.ts';
import { formatTable } from './text-table.ts';

/**
 * What `chaintap probe` learned from one upstream call:
 * - read: the answer was read element by element (some elements may still be unreadable);
 * - unreadable: the whole answer would be quarantined (it does not fit the wire schema);
 * - failed: no answer to read (a 5xx after retries, a timeout, a 4xx...);
 * - skipped: nothing to ask for (no address or token given, and none watched).
 */
export interface OperationProbe {
  operation: UpstreamOperation;
  /** What was asked for: an address, the number of tokens, or 'all' for the protocol list. */
  target: string;
  status: 'read' | 'unreadable' | 'failed' | 'skipped';
  /** Elements in the answer (read only). */
  elements: number | null;
  drifts: SchemaDrift[];
  /** What would be quarantined; index null for the whole answer. */
  quarantined: { index: number | null; reason: string }[];
  /** Why the call failed or was skipped. */
  note: string | null;
}

/** True when going live would quarantine or fail something. */
export function probeFindsProblems(probes: readonly OperationProbe[]): boolean {
  return probes.some((probe) => probe.status === 'failed' || probe.quarantined.length > 0);
}

/** A short table per operation, then a one-line verdict. */
export function formatProbeReport(probes: readonly OperationProbe[]): string {
  const lines: string[] = [];
  for (const probe of probes) {
    lines.push(`${[probe.operation, probe.target].filter(Boolean).join(' ')}: ${headline(probe)}`);
    const { drifts, quarantined } = probe;
    if (drifts.length > 0) {
      const rows = drifts.map(({ field, shape, count }) => [`  ${field}`, shape, String(count)]);
      lines.push(...formatTable([['  drifted field', 'shape', 'count'], ...rows]));
    }
    if (quarantined.length > 0) {
      const rows = quarantined.map(({ index, reason }) => [
        `  ${index === null ? 'whole answer' : `element ${index}`}`,
        reason,
      ]);
      lines.push(...formatTable([['  would quarantine', 'reason'], ...rows]));
    }
    lines.push('');
  }
  lines.push(verdict(probes));
  return lines.join('\n');
}

function headline({ status, drifts, quarantined, elements, note }: OperationProbe): string {
  switch (status) {
    case 'read': {
      const drifted = drifts.length === 0 ? 'no drift' : `${drifts.length} field/shape drift(s)`;
      const toQuarantine = quarantined.length === 0 ? 'nothing to quarantine' : `${quarantined.length} to quarantine`;
      return `read ${elements} element(s), ${drifted}, ${toQuarantine}`;
    }
    case 'unreadable':
      return 'the answer cannot be read: it would be quarantined whole';
    case 'failed':
      return `FAILED: ${note}`;
    case 'skipped':
      return `skipped: ${note}`;
  }
}

function verdict(probes: readonly OperationProbe[]): string {
  const count = (test: (probe: OperationProbe) => boolean) => probes.filter(test).length;
  const failed = count((probe) => probe.status === 'failed');
  const quarantined = probes.reduce((sum, probe) => sum + probe.quarantined.length, 0);
  const drifted = count((probe) => probe.drifts.length > 0);
  const skipped = count((probe) => probe.status === 'skipped');
  const skippedNote = skipped > 0 ? ` (${skipped} call(s) skipped)` : '';
  if (failed > 0 || quarantined > 0) {
    const problems = [
      failed > 0 && `${failed} call(s) failed`,
      quarantined > 0 && `${quarantined} element(s) or answer(s) would be quarantined`,
    ].filter(Boolean);
    return `verdict: NOT READY: ${problems.join(', ')}${skippedNote}`;
  }
  const drift = drifted > 0 ? `, drift absorbed in ${drifted} call(s)` : '';
  return `verdict: ready: every answer can be read${drift}${skippedNote}`;
}
