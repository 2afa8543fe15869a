import { html, type Html } from './html.ts';

/**
 * The inline SVG charts of the reports and the status page's sparklines: no script, no font or image
 * from anywhere, so that a report file opens and prints as it is. Values arrive as exact decimal
 * text and become floats here only to be placed on the page; the tables next to the charts carry
 * the exact figures. Pure: the same input always gives the same markup.
 */

export interface TimeValue {
  time: Date;
  /** Exact decimal text; null is a gap (no value known at that time): the line breaks there. */
  value: string | null;
}

export interface ChartSeries {
  name: string;
  /** Class of the series' path, e.g. `series-total`. */
  className: string;
  color: string;
  points: TimeValue[];
}

const PAD = { left: 84, right: 16, top: 26, bottom: 24 };
const X_TICKS = 4;
const figure = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 6 });
const round = (n: number) => Math.round(n * 10) / 10;

/** A UTC date when the span is over ten days (ticks fall days apart), else month, day and time of day. */
function timeLabel(time: Date, spanMs: number): string {
  const iso = time.toISOString();
  return spanMs > 10 * 86_400_000 ? iso.slice(0, 10) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

function finite(value: string | null): number | null {
  if (value === null) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

/** The y range of the values: widened when flat, and to 0 when asked (PnL charts show the zero line). */
function valueRange(values: number[], includeZero: boolean): { low: number; high: number } {
  let low = Math.min(...values, ...(includeZero ? [0] : []));
  let high = Math.max(...values, ...(includeZero ? [0] : []));
  if (high === low) {
    const pad = Math.abs(high) * 0.01 || 1;
    low -= pad;
    high += pad;
  }
  return { low, high };
}

interface Frame {
  width: number;
  height: number;
  xOf(time: number): number;
  yOf(value: number): number;
  bottom: number;
}

function svgOpen(className: string, width: number, height: number, title: string, extra: Html = html``): Html {
  return html`<svg class="${className}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="11" fill="#57606a" role="img" aria-label="${title}"${extra}><title>${title}</title>`;
}

function timeAxis(frame: Frame, from: number, to: number): Html {
  const plotWidth = frame.width - PAD.left - PAD.right;
  return html`${Array.from({ length: X_TICKS + 1 }, (_, index) => {
    const x = round(PAD.left + (plotWidth * index) / X_TICKS);
    const time = new Date(from + ((to - from) * index) / X_TICKS);
    const anchor = index === 0 ? 'start' : index === X_TICKS ? 'end' : 'middle';
    return html`<line x1="${x}" y1="${PAD.top}" x2="${x}" y2="${frame.bottom}" stroke="#eaeef2"/><text x="${x}" y="${frame.height - 7}" text-anchor="${anchor}">${timeLabel(time, to - from)}</text>`;
  })}`;
}

function valueAxis(frame: Frame, low: number, high: number): Html {
  const plotWidth = frame.width - PAD.left - PAD.right;
  return html`${[high, (high + low) / 2, low].map((value) => {
    const y = round(frame.yOf(value));
    return html`<line x1="${PAD.left}" y1="${y}" x2="${PAD.left + plotWidth}" y2="${y}" stroke="#eaeef2"/><text x="${PAD.left - 6}" y="${y + 4}" text-anchor="end">${figure.format(value)}</text>`;
  })}`;
}

function zeroLine(frame: Frame, low: number, high: number): Html {
  if (low > 0 || high < 0) return html``;
  const y = round(frame.yOf(0));
  return html`<line class="zero" x1="${PAD.left}" y1="${y}" x2="${frame.width - PAD.right}" y2="${y}" stroke="#8c959f" stroke-dasharray="3 3"/>`;
}

/** "M x,y L x,y ..." with a new M after every gap, and the number of points drawn. */
function linePath(points: { x: number; y: number | null }[]): { d: string; drawn: number } {
  let d = '';
  let drawn = 0;
  let pen = false;
  for (const { x, y } of points) {
    if (y === null) {
      pen = false;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${round(x)},${round(y)} `;
    pen = true;
    drawn += 1;
  }
  return { d: d.trim(), drawn };
}

function legend(series: ChartSeries[]): Html {
  let x = PAD.left;
  return html`${series.map((s) => {
    const item = html`<rect x="${x}" y="8" width="10" height="10" fill="${s.color}"/><text x="${x + 14}" y="17">${s.name}</text>`;
    x += 24 + s.name.length * 6.5;
    return item;
  })}`;
}

/**
 * A line chart of one or more series over [from, to]: one path per series (class = its className,
 * `data-points` = the values drawn), broken at every gap; dots on each value when there are few.
 */
export function renderTimeChartSvg(
  series: ChartSeries[],
  options: { from: Date; to: Date; title: string; width?: number; height?: number; includeZero?: boolean },
): Html {
  const width = options.width ?? 760;
  const height = options.height ?? 240;
  const from = options.from.getTime();
  const to = Math.max(options.to.getTime(), from + 1);
  const plotWidth = width - PAD.left - PAD.right;
  const bottom = height - PAD.bottom;
  const values = series.flatMap((s) => s.points.map((p) => finite(p.value)).filter((v): v is number => v !== null));
  const open = svgOpen('report-chart time-chart', width, height, options.title);
  const xOf = (time: number) => PAD.left + ((time - from) / (to - from)) * plotWidth;
  if (values.length === 0) {
    const frame: Frame = { width, height, xOf, yOf: () => bottom, bottom };
    return html`${open}${timeAxis(frame, from, to)}<text class="empty" x="${PAD.left + plotWidth / 2}" y="${(PAD.top + bottom) / 2}" text-anchor="middle">no value in this range</text></svg>`;
  }
  const { low, high } = valueRange(values, options.includeZero ?? false);
  const yOf = (value: number) => PAD.top + (1 - (value - low) / (high - low)) * (bottom - PAD.top);
  const frame: Frame = { width, height, xOf, yOf, bottom };
  const lines = series.map((s) => {
    const placed = s.points.map((p) => {
      const value = finite(p.value);
      return { x: xOf(p.time.getTime()), y: value === null ? null : yOf(value) };
    });
    const { d, drawn } = linePath(placed);
    const dots =
      drawn <= 60
        ? placed.map((p) =>
            p.y === null ? '' : html`<circle cx="${round(p.x)}" cy="${round(p.y)}" r="2.5" fill="${s.color}"/>`,
          )
        : '';
    return html`<path class="series ${s.className}" d="${d}" data-points="${drawn}" fill="none" stroke="${s.color}" stroke-width="1.8" stroke-linejoin="round"/>${dots}`;
  });
  return html`${open}<rect x="${PAD.left}" y="${PAD.top}" width="${plotWidth}" height="${bottom - PAD.top}" fill="#ffffff" stroke="#d0d7de"/>${timeAxis(frame, from, to)}${valueAxis(frame, low, high)}${zeroLine(frame, low, high)}${lines}${legend(series)}</svg>`;
}

export interface Bar {
  label: string;
  /** Exact decimal text; null: unknown (no bar, marked). */
  value: string | null;
}

const BAR_ROW = 20;
const BAR_LABEL = 220;
const BAR_VALUE = 96;

/**
 * Horizontal bars from a zero line, one row per entry in the given order: positive green, negative
 * red (class `bar positive|negative`), each value written in a column on the right.
 */
export function renderBarChartSvg(bars: Bar[], options: { title: string; width?: number }): Html {
  const width = options.width ?? 760;
  const height = PAD.top + Math.max(1, bars.length) * BAR_ROW + 8;
  const open = svgOpen('report-chart bar-chart', width, height, options.title, html` data-bars="${bars.length}"`);
  if (bars.length === 0)
    return html`${open}<text class="empty" x="${width / 2}" y="${PAD.top + 12}" text-anchor="middle">nothing to chart</text></svg>`;
  const values = bars.map((bar) => finite(bar.value)).filter((v): v is number => v !== null);
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const left = BAR_LABEL;
  const plotWidth = width - left - BAR_VALUE - 12;
  const xOf = (value: number) => left + (high === low ? 0 : ((value - low) / (high - low)) * plotWidth);
  const zero = round(xOf(0));
  const rows = bars.map((bar, index) => {
    const y = PAD.top + index * BAR_ROW;
    const label = bar.label.length > 34 ? `${bar.label.slice(0, 33)}…` : bar.label;
    const value = finite(bar.value);
    const name = html`<text x="${left - 8}" y="${y + 14}" text-anchor="end"><title>${bar.label}</title>${label}</text>`;
    const valueText = (text: string) => html`<text x="${width - 4}" y="${y + 14}" text-anchor="end">${text}</text>`;
    if (value === null) return html`${name}<g class="unknown">${valueText('unknown')}</g>`;
    const x = round(Math.min(xOf(value), xOf(0)));
    const barWidth = Math.max(1, round(Math.abs(xOf(value) - xOf(0))));
    const sign = value < 0 ? 'negative' : 'positive';
    return html`${name}<rect class="bar ${sign}" x="${x}" y="${y + 3}" width="${barWidth}" height="${BAR_ROW - 6}" fill="${value < 0 ? '#cf222e' : '#1a7f37'}"/>${valueText(figure.format(value))}`;
  });
  return html`${open}<line class="zero" x1="${zero}" y1="${PAD.top - 4}" x2="${zero}" y2="${height - 4}" stroke="#8c959f"/>${rows}</svg>`;
}

export interface OhlcPoint {
  time: Date;
  open: string | null;
  high: string | null;
  low: string | null;
  close: string | null;
}

interface DisplayBucket {
  start: number;
  end: number;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number | null;
}

/** Consecutive buckets merged `size` at a time: first open, highest high, lowest low, last close. */
function mergeBuckets(points: OhlcPoint[], intervalMs: number, size: number): DisplayBucket[] {
  const merged: DisplayBucket[] = [];
  for (let i = 0; i < points.length; i += size) {
    const group = points.slice(i, i + size);
    const known = group.filter((p) => finite(p.close) !== null);
    merged.push({
      start: group[0]!.time.getTime(),
      end: group[group.length - 1]!.time.getTime() + intervalMs,
      open: known.length ? finite(known[0]!.open) : null,
      high: known.length ? Math.max(...known.map((p) => finite(p.high)!)) : null,
      low: known.length ? Math.min(...known.map((p) => finite(p.low)!)) : null,
      close: known.length ? finite(known[known.length - 1]!.close) : null,
    });
  }
  return merged;
}

/**
 * One token's OHLC buckets over [from, to): per bucket a high–low line (class `ohlc-range`) and,
 * when wide enough, an open–close body; the closes joined by a line (class `ohlc-close`) that breaks
 * at gaps, and each gap shaded (class `gap`). More than `maxBuckets` buckets are merged for drawing.
 */
export function renderOhlcChartSvg(
  points: OhlcPoint[],
  options: {
    from: Date;
    to: Date;
    intervalMs: number;
    title: string;
    width?: number;
    height?: number;
    maxBuckets?: number;
  },
): Html {
  const width = options.width ?? 760;
  const height = options.height ?? 220;
  const from = options.from.getTime();
  const to = Math.max(options.to.getTime(), from + 1);
  const plotWidth = width - PAD.left - PAD.right;
  const bottom = height - PAD.bottom;
  const size = Math.ceil(points.length / (options.maxBuckets ?? 240)) || 1;
  const buckets = mergeBuckets(points, options.intervalMs, size);
  const xOf = (time: number) => PAD.left + ((Math.min(time, to) - from) / (to - from)) * plotWidth;
  const open = svgOpen(
    'report-chart ohlc-chart',
    width,
    height,
    options.title,
    html` data-buckets="${buckets.length}"`,
  );
  const values = buckets.flatMap((b) => (b.high === null ? [] : [b.high, b.low!]));
  if (values.length === 0) {
    const frame: Frame = { width, height, xOf, yOf: () => bottom, bottom };
    return html`${open}${timeAxis(frame, from, to)}<text class="empty" x="${PAD.left + plotWidth / 2}" y="${(PAD.top + bottom) / 2}" text-anchor="middle">no price in this range</text></svg>`;
  }
  const { low, high } = valueRange(values, false);
  const yOf = (value: number) => PAD.top + (1 - (value - low) / (high - low)) * (bottom - PAD.top);
  const frame: Frame = { width, height, xOf, yOf, bottom };
  const marks = buckets.map((b) => {
    const x0 = xOf(b.start);
    const x1 = xOf(b.end);
    const middle = round((x0 + x1) / 2);
    if (b.close === null)
      return html`<rect class="gap" x="${round(x0)}" y="${PAD.top}" width="${Math.max(0.5, round(x1 - x0))}" height="${bottom - PAD.top}" fill="#cf222e" fill-opacity="0.08"/>`;
    const color = b.close >= b.open! ? '#1a7f37' : '#cf222e';
    const bodyWidth = (x1 - x0) * 0.6;
    const body =
      bodyWidth >= 3
        ? html`<rect class="ohlc-body" x="${round(middle - bodyWidth / 2)}" y="${round(yOf(Math.max(b.open!, b.close)))}" width="${round(bodyWidth)}" height="${Math.max(1, round(Math.abs(yOf(b.open!) - yOf(b.close))))}" fill="${color}"/>`
        : '';
    return html`<line class="ohlc-range" x1="${middle}" y1="${round(yOf(b.high!))}" x2="${middle}" y2="${round(yOf(b.low!))}" stroke="${color}"/>${body}`;
  });
  const { d, drawn } = linePath(
    buckets.map((b) => ({ x: (xOf(b.start) + xOf(b.end)) / 2, y: b.close === null ? null : yOf(b.close) })),
  );
  return html`${open}<rect x="${PAD.left}" y="${PAD.top}" width="${plotWidth}" height="${bottom - PAD.top}" fill="#ffffff" stroke="#d0d7de"/>${timeAxis(frame, from, to)}${valueAxis(frame, low, high)}${marks}<path class="ohlc-close" d="${d}" data-points="${drawn}" fill="none" stroke="#2563eb" stroke-width="1.2" stroke-opacity="0.7"/></svg>`;
}

/**
 * A small line of values over [from, to] for a table cell (class `sparkline`), broken at gaps, with
 * a dot on the last value; `data-points` = the values drawn.
 */
export function renderSparklineSvg(
  points: TimeValue[],
  options: { from: Date; to: Date; title: string; width?: number; height?: number },
): Html {
  const width = options.width ?? 140;
  const height = options.height ?? 30;
  const from = options.from.getTime();
  const to = Math.max(options.to.getTime(), from + 1);
  const open = svgOpen('sparkline', width, height, options.title);
  const values = points.map((p) => finite(p.value)).filter((v): v is number => v !== null);
  if (values.length === 0)
    return html`${open}<line x1="2" y1="${height / 2}" x2="${width - 2}" y2="${height / 2}" stroke="#d0d7de" stroke-dasharray="2 3"/></svg>`;
  const { low, high } = valueRange(values, false);
  const xOf = (time: number) => 2 + ((time - from) / (to - from)) * (width - 4);
  const yOf = (value: number) => 3 + (1 - (value - low) / (high - low)) * (height - 6);
  const placed = points.map((p) => {
    const value = finite(p.value);
    return { x: xOf(p.time.getTime()), y: value === null ? null : yOf(value) };
  });
  const { d, drawn } = linePath(placed);
  const last = placed.filter((p) => p.y !== null).at(-1)!;
  return html`${open}<path class="spark-line" d="${d}" data-points="${drawn}" fill="none" stroke="#2563eb" stroke-width="1.4" stroke-linejoin="round"/><circle cx="${round(last.x)}" cy="${round(last.y!)}" r="2" fill="#2563eb"/></svg>`;
}
