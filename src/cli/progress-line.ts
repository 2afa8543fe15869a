import { groupThousands } from '../runtime/number-text.ts';
import { formatSpan } from '../runtime/time-span.ts';

/** Where a progress line goes: standard error, or a stream that stands in for it. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** A terminal's width; the line is kept within it, so that a redraw never wraps. */
  columns?: number;
}

export interface ProgressSettings {
  label: string;
  stream?: ProgressStream;
  /** Not on a terminal: a plain line at most this often (and the last one at the end). */
  plainEveryMs?: number;
  now?: () => number;
}

export interface ProgressLine {
  /** Whether the line is redrawn in place (the stream is a terminal). */
  readonly terminal: boolean;
  update(done: number, total: number): void;
  /** Writes log output (whole lines) above the bar: the bar is cleared, the lines written, the bar drawn again. */
  writeLog(lines: string): void;
  /** Leaves the last state on its own line. */
  finish(): void;
}

/** Back to the line's start and erase it (ANSI: carriage return, then "erase line"). */
const CLEAR_LINE = '\r\x1b[2K';
const BAR_WIDTH = 30;

/**
 * Done/total, the rate since the first update and the time left at that rate. On a terminal one line
 * redrawn in place, kept within the terminal's width; elsewhere (a pipe, a file, a CI log) a plain
 * line now and then.
 */
export function createProgressLine(settings: ProgressSettings): ProgressLine {
  const { label, stream = process.stderr, plainEveryMs = 60_000, now = Date.now } = settings;
  const terminal = stream.isTTY === true;
  let first: { at: number; done: number } | undefined;
  let drawn = '';
  let plainAt = -Infinity;
  /** Not on a terminal: the done count of the last line written. */
  let printed: number | undefined;
  let last: { done: number; total: number } | undefined;

  /** "1,234/10,081 (12%) at 39.8/min, 3 h 42 min left". */
  const figures = (done: number, total: number, at: number): string => {
    const shown = `${groupThousands(String(done))}/${groupThousands(String(total))} (${Math.floor((done / total) * 100)}%)`;
    const seconds = (at - first!.at) / 1000;
    const perSecond = seconds > 0 ? (done - first!.done) / seconds : 0;
    if (perSecond <= 0) return done >= total ? shown : `${shown}, measuring the rate`;
    const rate = perSecond >= 1 ? `${perSecond.toFixed(1)}/s` : `${(perSecond * 60).toFixed(1)}/min`;
    const left = done >= total ? 'done' : `${formatSpan((total - done) / perSecond)} left`;
    return `${shown} at ${rate}, ${left}`;
  };

  const barLine = (text: string, done: number, total: number): string => {
    const columns = stream.columns ?? 80;
    const width = Math.min(BAR_WIDTH, columns - label.length - text.length - 5);
    if (width < 10) return `${label} ${text}`.slice(0, columns - 1);
    const filled = Math.round((Math.min(done, total) / total) * width);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`;
  };

  return {
    terminal,
    update(done, total) {
      if (total === 0) return;
      const at = now();
      first ??= { at, done };
      last = { done, total };
      const text = figures(done, total, at);
      if (terminal) {
        const line = barLine(text, done, total);
        if (line !== drawn) stream.write(`${CLEAR_LINE}${line}`);
        drawn = line;
      } else if (at - plainAt >= plainEveryMs || (done >= total && printed !== done)) {
        stream.write(`${label}: ${text}\n`);
        plainAt = at;
        printed = done;
      }
    },
    writeLog(lines) {
      stream.write(terminal && drawn ? `${CLEAR_LINE}${lines}${drawn}` : lines);
    },
    finish() {
      if (terminal && drawn) stream.write('\n');
      else if (!terminal && last && printed !== last.done) {
        stream.write(`${label}: ${figures(last.done, last.total, now())}\n`);
      }
      drawn = '';
    },
  };
}
