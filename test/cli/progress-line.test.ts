import { describe, expect, it } from 'vitest';
import { createProgressLine } from '../../src/cli/progress-line.ts';

/** A stream that records what is written, as a terminal (with a width) or not. */
function recorder(terminal: boolean, columns = 100) {
  let written = '';
  return {
    stream: { isTTY: terminal, columns, write: (text: string) => (written += text) },
    written: () => written,
  };
}

/**
 * What a terminal shows after `output`: carriage return to the line's start, ESC[2K erases the
 * line, a newline moves down; a line longer than the width wraps (so that a test sees a wrapped bar).
 */
function screen(output: string, columns: number): string[] {
  const lines: string[] = [''];
  let column = 0;
  for (let i = 0; i < output.length; i++) {
    if (output.startsWith('\x1b[2K', i)) {
      lines[lines.length - 1] = '';
      i += 3;
    } else if (output[i] === '\r') column = 0;
    else if (output[i] === '\n') {
      lines.push('');
      column = 0;
    } else {
      if (column === columns) {
        lines.push('');
        column = 0;
      }
      const line = lines[lines.length - 1]!;
      lines[lines.length - 1] = line.slice(0, column) + output[i] + line.slice(column + 1);
      column += 1;
    }
  }
  return lines;
}

describe('the backfill progress line', () => {
  it('on a terminal: one line redrawn in place, with done/total, the rate and the time left', () => {
    let now = 0;
    const { stream, written } = recorder(true, 100);
    const progress = createProgressLine({ label: 'backfill', stream, now: () => now });
    progress.update(0, 10_000);
    expect(screen(written(), 100)).toEqual([
      'backfill [..............................] 0/10,000 (0%), measuring the rate',
    ]);
    now = 60_000;
    progress.update(40, 10_000);
    now = 120_000;
    progress.update(80, 10_000);
    // 80 in 2 minutes: 40/min, 9,920 left: 4 h 8 min.
    expect(screen(written(), 100)).toEqual([
      'backfill [..............................] 80/10,000 (0%) at 40.0/min, 4 h 8 min left',
    ]);
    now = 130_000;
    progress.update(5_000, 10_000);
    // 5,000 in 130 s: 38.5/s, 5,000 left: 130 s.
    expect(screen(written(), 100)).toEqual([
      'backfill [###############...............] 5,000/10,000 (50%) at 38.5/s, 2 min 10 s left',
    ]);
    progress.finish();
    expect(screen(written(), 100)).toHaveLength(2);
    expect(screen(written(), 100).at(-1)).toBe('');
  });

  it('on a terminal: a log line is written whole above the bar, which is drawn again below it', () => {
    let now = 0;
    const { stream, written } = recorder(true, 100);
    const progress = createProgressLine({ label: 'backfill', stream, now: () => now });
    progress.update(0, 100);
    now = 1_000;
    progress.update(10, 100);
    progress.writeLog('WARN: PostgreSQL does not answer\n');
    now = 2_000;
    progress.update(20, 100);
    progress.writeLog('INFO: shutting down\nINFO: workers closed\n');
    progress.finish();
    expect(screen(written(), 100)).toEqual([
      'WARN: PostgreSQL does not answer',
      'INFO: shutting down',
      'INFO: workers closed',
      'backfill [######........................] 20/100 (20%) at 10.0/s, 8 s left',
      '',
    ]);
  });

  it('on a narrow terminal: the line stays within the width, so that a redraw never wraps', () => {
    let now = 0;
    for (const columns of [60, 40, 20]) {
      const { stream, written } = recorder(true, columns);
      const progress = createProgressLine({ label: 'backfill', stream, now: () => now });
      progress.update(0, 10_000);
      now += 60_000;
      progress.update(1_234, 10_000);
      now += 60_000;
      progress.update(2_345, 10_000);
      const lines = screen(written(), columns);
      expect(lines, String(columns)).toHaveLength(1);
      expect(lines[0]!.length).toBeLessThan(columns);
      expect(lines[0]).toMatch(/^backfill /);
    }
  });

  it('elsewhere (a pipe, a CI log): a plain line now and then, and the last at the end; no control characters', () => {
    let now = 0;
    const { stream, written } = recorder(false);
    const progress = createProgressLine({ label: 'backfill', stream, now: () => now, plainEveryMs: 60_000 });
    for (let minute = 0; minute <= 3; minute++) {
      for (let second = 0; second < 60; second += 1) {
        now = minute * 60_000 + second * 1_000;
        progress.update(minute * 60 + second, 300);
      }
    }
    progress.writeLog('{"level":30,"msg":"a log line"}\n');
    now = 240_000;
    progress.update(240, 300);
    progress.finish();
    expect(written()).not.toContain('\r');
    expect(written()).not.toContain('\x1b');
    expect(written().split('\n')).toEqual([
      'backfill: 0/300 (0%), measuring the rate',
      'backfill: 60/300 (20%) at 1.0/s, 4 min 0 s left',
      'backfill: 120/300 (40%) at 1.0/s, 3 min 0 s left',
      'backfill: 180/300 (60%) at 1.0/s, 2 min 0 s left',
      '{"level":30,"msg":"a log line"}',
      'backfill: 240/300 (80%) at 1.0/s, 1 min 0 s left',
      '',
    ]);
  });

  it('elsewhere: the end is written once, when the last request is done', () => {
    let now = 0;
    const { stream, written } = recorder(false);
    const progress = createProgressLine({ label: 'backfill', stream, now: () => now });
    progress.update(0, 2);
    now = 2_000;
    progress.update(2, 2);
    now = 3_000;
    progress.update(2, 2);
    progress.finish();
    expect(written()).toBe('backfill: 0/2 (0%), measuring the rate\nbackfill: 2/2 (100%) at 1.0/s, done\n');
  });
});
