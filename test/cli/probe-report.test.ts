import { describe, expect, it } from 'vitest';
import { formatProbeReport, probeFindsProblems, type OperationProbe } from '../../src/cli/probe-report.ts';

const read = (changes: Partial<OperationProbe>): OperationProbe => ({
  operation: 'positions',
  target: '0xabc',
  status: 'read',
  elements: 13,
  drifts: [],
  quarantined: [],
  note: null,
  ...changes,
});

describe('probe report', () => {
  it('lists drifts and each element that would be quarantined, with a NOT READY verdict', () => {
    const probes = [
      read({
        drifts: [{ field: 'positions.fee', shape: 'value_object', count: 3 }],
        quarantined: [{ index: 4, reason: 'positionId: missing' }],
      }),
    ];
    expect(probeFindsProblems(probes)).toBe(true);
    expect(formatProbeReport(probes).split('\n')).toEqual([
      'positions 0xabc: read 13 element(s), 1 field/shape drift(s), 1 to quarantine',
      '  drifted field  shape         count',
      '  positions.fee  value_object  3',
      '  would quarantine  reason',
      '  element 4         positionId: missing',
      '',
      'verdict: NOT READY: 1 element(s) or answer(s) would be quarantined',
    ]);
  });

  it('is ready when drift is all there is; a skipped call is said but not a problem', () => {
    const probes = [
      read({ drifts: [{ field: 'positions.fee', shape: 'numeric_string', count: 1 }] }),
      read({ operation: 'nfts', target: '', status: 'skipped', elements: null, note: 'no address' }),
    ];
    expect(probeFindsProblems(probes)).toBe(false);
    const text = formatProbeReport(probes);
    expect(text).toContain('nfts: skipped: no address');
    expect(text.split('\n').at(-1)).toBe(
      'verdict: ready: every answer can be read, drift absorbed in 1 call(s) (1 call(s) skipped)',
    );
  });

  it('counts a failed call as a problem', () => {
    const probes = [read({ status: 'failed', elements: null, note: 'HTTP 503' })];
    expect(probeFindsProblems(probes)).toBe(true);
    expect(formatProbeReport(probes)).toContain('positions 0xabc: FAILED: HTTP 503');
  });
});
