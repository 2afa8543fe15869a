import type { UpstreamOperation } from '../datasets.ts';
import type { SchemaDrift } from '../db/schema/rows.ts';

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
    if (probe.drifts.length > 0) {
      lines.push(...table(['  drifted field', 'shape', 'count'], probe.drifts.map(driftCells)));
    }
    if (probe.quarantined.length > 0) {
      lines.push(
        ...table(
          ['  would quarantine', 'reason'],
          probe.quarantined.map(({ index, reason }) => [
            `  ${index === null ? 'whole answer' : `element ${index}`}`,
            reason,
          ]),
        ),
      );
    }
    lines.push('');
  }
  lines.push(verdict(probes));
  return lines.join('\n');
}

function headline(probe: OperationProbe): string {
  switch (probe.status) {
    case 'read': {
      const drifts = probe.drifts.length === 0 ? 'no drift' : `${probe.drifts.length} field/shape drift(s)`;
      const quarantined =
        probe.quarantined.length === 0 ? 'nothing to quarantine' : `${probe.quarantined.length} to quarantine`;
      return `read ${probe.elements} element(s), ${drifts}, ${quarantined}`;
    }
    case 'unreadable':
      return 'the answer cannot be read: it would be quarantined whole';
    case 'failed':
      return `FAILED: ${probe.note}`;
    case 'skipped':
      return `skipped: ${probe.note}`;
  }
}

function driftCells(drift: SchemaDrift): string[] {
  return [`  ${drift.field}`, drift.shape, String(drift.count)];
}

/** Rows padded into columns; the last column is not padded. */
function table(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column]!.length)));
  return all.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
  );
}

function verdict(probes: readonly OperationProbe[]): string {
  const failed = probes.filter((probe) => probe.status === 'failed').length;
  const quarantined = probes.reduce((sum, probe) => sum + probe.quarantined.length, 0);
  const drifted = probes.filter((probe) => probe.drifts.length > 0).length;
  const skipped = probes.filter((probe) => probe.status === 'skipped').length;
  const skippedNote = skipped > 0 ? ` (${skipped} call(s) skipped)` : '';
  if (failed > 0 || quarantined > 0) {
    const parts = [
      ...(failed > 0 ? [`${failed} call(s) failed`] : []),
      ...(quarantined > 0 ? [`${quarantined} element(s) or answer(s) would be quarantined`] : []),
    ];
    return `verdict: NOT READY: ${parts.join(', ')}${skippedNote}`;
  }
  const drift = drifted > 0 ? `, drift absorbed in ${drifted} call(s)` : '';
  return `verdict: ready: every answer can be read${drift}${skippedNote}`;
}
