import { extentOf, niceTicks, thinPerBucket, tickFormat, timeTicks, type TimedValue } from './chart-scale.ts';
import { formatUsd } from './figures.ts';
import { html, type Html } from './html.ts';

/**
 * Every chart as inline SVG, nothing fetched, so a report file opens and prints as it is. Decimal
 * text becomes a float only to be placed (tables and titles keep it exact). Long series are thinned
 * per pixel (chart-scale.ts): 100,000 points draw as small as 1,000, and no spike is lost.
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

/** Room for the value labels on the left, the legend on top and the time labels below. */
const PAD = { left: 72, right: 16, top: 26, bottom: 24 };
type Padding = typeof PAD;
/** The same without a legend, for the status page's small charts. */
const PAD_SMALL: Padding = { left: 60, right: 10, top: 10, bottom: 22 };
/** Series drawn with at most this many values get a dot on each (a lone value is otherwise invisible). */
const DOTS_UP_TO = 60;
const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Beyond this magnitude the axis maths overflow (a range of ±1.7e308 is Infinity wide, its ticks NaN):
 * such a value is no point of the chart. No stored price comes near it (price-plausibility.ts).
 */
const DRAWABLE = 1e300;

function finite(value: string | null): number | null {
  if (value === null) return null;
  const number = Number(value);
  return Number.isFinite(number) && Math.abs(number) <= DRAWABLE ? number : null;
}

/** The plot area of a chart over [from, to] (`bottom`: its bottom edge) and its scales. */
function plotOf(width: number, height: number, pad: Padding, from: number, to: number, low = 0, high = 1) {
  const plotWidth = width - pad.left - pad.right;
  const bottom = height - pad.bottom;
  const xOf = (time: number) => pad.left + ((time - from) / (to - from)) * plotWidth;
  const yOf = (value: number) => pad.top + (1 - (value - low) / (high - low)) * (bottom - pad.top);
  return { width, height, pad, bottom, plotWidth, from, to, xOf, yOf };
}
type Plot = ReturnType<typeof plotOf>;

function svgOpen(className: string, width: number, height: number, title: string, extra: Html = html``): Html {
  return html`<svg class="${className}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="11" fill="#57606a" role="img" aria-label="${title}"${extra}><title>${title}</title>`;
}

/** The plot's white area, a vertical grid line and a label at each round time of [from, to]. */
function timeAxis(plot: Plot): Html {
  const { ticks, label } = timeTicks(plot.from, plot.to, Math.max(2, Math.floor(plot.plotWidth / 110)));
  const marks = ticks.map((time) => {
    const x = round(plot.xOf(time));
    const anchor = x - plot.pad.left < 30 ? 'start' : plot.pad.left + plot.plotWidth - x < 30 ? 'end' : 'middle';
    return html`<line x1="${x}" y1="${plot.pad.top}" x2="${x}" y2="${plot.bottom}" stroke="#eaeef2"/><text class="x-tick" x="${x}" y="${plot.height - 7}" text-anchor="${anchor}">${label(time)}</text>`;
  });
  return html`<rect class="plot" x="${plot.pad.left}" y="${plot.pad.top}" width="${plot.plotWidth}" height="${plot.bottom - plot.pad.top}" fill="#ffffff" stroke="#d0d7de"/>${marks}`;
}

/** A horizontal grid line and a label at each round value. */
function valueAxis(plot: Plot, ticks: number[], step: number): Html {
  const label = tickFormat(ticks, step, '$');
  return html`${ticks.map((value) => {
    const y = round(plot.yOf(value));
    return html`<line x1="${plot.pad.left}" y1="${y}" x2="${plot.pad.left + plot.plotWidth}" y2="${y}" stroke="#eaeef2"/><text class="y-tick" x="${plot.pad.left - 6}" y="${y + 4}" text-anchor="end">${label(value)}</text>`;
  })}`;
}

function zeroLine(plot: Plot, low: number, high: number): Html {
  if (low > 0 || high < 0) return html``;
  const y = round(plot.yOf(0));
  return html`<line class="zero" x1="${plot.pad.left}" y1="${y}" x2="${plot.width - plot.pad.right}" y2="${y}" stroke="#8c959f" stroke-dasharray="3 3"/>`;
}

/** A chart with no value to draw: its time axis and `text` in the middle. */
function emptyChart(open: Html, plot: Plot, text: string): Html {
  return html`${open}${timeAxis(plot)}<text class="empty" x="${plot.pad.left + plot.plotWidth / 2}" y="${(plot.pad.top + plot.bottom) / 2}" text-anchor="middle">${text}</text></svg>`;
}

type Placed = { x: number; y: number | null }[];

/** The runs of points between gaps. */
function runsOf(points: Placed): { x: number; y: number }[][] {
  const runs: { x: number; y: number }[][] = [];
  let run: { x: number; y: number }[] | undefined;
  for (const { x, y } of points) {
    if (y === null) run = undefined;
    else if (run) run.push({ x, y });
    else runs.push((run = [{ x, y }]));
  }
  return runs;
}

const coordinates = (run: { x: number; y: number }[]) => run.map((p) => `${round(p.x)},${round(p.y)}`).join(' L');

/** "M x,y L x,y ..." with a new M after every gap, and the number of points drawn. */
function linePath(points: Placed): { d: string; drawn: number } {
  const runs = runsOf(points);
  return { d: runs.map((run) => `M${coordinates(run)}`).join(' '), drawn: runs.flat().length };
}

function legend(series: ChartSeries[], left: number): Html {
  let x = left;
  return html`${series.map((s) => {
    const item = html`<rect x="${x}" y="8" width="10" height="10" fill="${s.color}"/><text x="${x + 14}" y="17">${s.name}</text>`;
    x += 24 + s.name.length * 6.5;
    return item;
  })}`;
}

/** A series' values inside [from, to] in time order, as numbers, thinned to `buckets` pixel buckets. */
function placeable(points: TimeValue[], from: number, to: number, buckets: number): TimedValue[] {
  const timed = points
    .filter((point) => point.time.getTime() >= from && point.time.getTime() <= to)
    .map((point) => ({ time: point.time.getTime(), value: finite(point.value) }));
  timed.sort((a, b) => a.time - b.time); // stable, and linear on points already in order
  return thinPerBucket(timed, from, to, buckets);
}

/** The window [from, to] a time chart shows, its title and its size in pixels. */
interface ChartWindow {
  from: Date;
  to: Date;
  title: string;
  width?: number;
  height?: number;
}

export interface TimeChartOptions extends ChartWindow {
  /** Widen the value axis to 0 (PnL charts show the zero line). */
  includeZero?: boolean;
  /** The svg's classes (default `report-chart time-chart`). */
  className?: string;
  /** A small chart: no legend, narrower margins (the status page's price charts). */
  compact?: boolean;
  /** Shade the area under the first series and dot its last value. */
  area?: boolean;
  /** What the chart says when no series has a value in [from, to]. */
  emptyText?: string;
}

/**
 * A line chart of series over [from, to]: a path per series (class = its className, `data-points` =
 * values drawn after thinning) broken at gaps, on round ticks; a dot on each value when few.
 */
export function renderTimeChartSvg(series: ChartSeries[], options: TimeChartOptions): Html {
  const { width = 760, height = 240 } = options;
  const pad = options.compact ? PAD_SMALL : PAD;
  const from = options.from.getTime();
  const to = Math.max(options.to.getTime(), from + 1);
  const open = svgOpen(options.className ?? 'report-chart time-chart', width, height, options.title);
  const buckets = Math.max(1, Math.floor((width - pad.left - pad.right) / 2));
  const placed = series.map((s) => placeable(s.points, from, to, buckets));
  const values = placed.flat().map((point) => point.value);
  if (values.every((value) => value === null))
    return emptyChart(open, plotOf(width, height, pad, from, to), options.emptyText ?? 'no value in this range');
  const extent = extentOf(options.includeZero ? [...values, 0] : values)!;
  const { low, high, ticks, step } = niceTicks(extent.low, extent.high, Math.max(2, Math.round((height - 50) / 40)));
  const plot = plotOf(width, height, pad, from, to, low, high);
  const lines = series.map((s, index) => {
    const xy = placed[index]!.map((p) => ({ x: plot.xOf(p.time), y: p.value === null ? null : plot.yOf(p.value) }));
    const { d, drawn } = linePath(xy);
    const dots =
      drawn <= DOTS_UP_TO && !options.area
        ? xy.map((p) =>
            p.y === null ? '' : html`<circle cx="${round(p.x)}" cy="${round(p.y)}" r="2.5" fill="${s.color}"/>`,
          )
        : '';
    const shaded = options.area && index === 0 ? areaUnder(xy, plot.bottom, s.color) : '';
    return html`${shaded}<path class="series ${s.className}" d="${d}" data-points="${drawn}" fill="none" stroke="${s.color}" stroke-width="1.8" stroke-linejoin="round"/>${dots}`;
  });
  const last = options.area ? lastValueDot(placed[0]!, plot, series[0]!.color) : '';
  const times = new Set(placed.flat().flatMap((point) => (point.value === null ? [] : [point.time])));
  const only = times.size === 1 ? [...times][0]! : undefined;
  const single = only === undefined ? '' : singleTimeLabel(plot, plot.xOf(only), only);
  return html`${open}${timeAxis(plot)}${valueAxis(plot, ticks, step)}${zeroLine(plot, low, high)}${single}${lines}${last}${options.compact ? '' : legend(series, pad.left)}</svg>`;
}

/**
 * The time of a chart's only point, in full (a lone dot on an axis of round ticks does not say when
 * it is): a dashed line through it and its time at the top of the plot, kept inside it.
 */
function singleTimeLabel(plot: Plot, atX: number, time: number): Html {
  const x = round(atX);
  const anchor = x - plot.pad.left < 80 ? 'start' : plot.pad.left + plot.plotWidth - x < 80 ? 'end' : 'middle';
  const dx = anchor === 'start' ? 4 : anchor === 'end' ? -4 : 0;
  const text = `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<line class="point-time-line" x1="${x}" y1="${plot.pad.top}" x2="${x}" y2="${plot.bottom}" stroke="#8c959f" stroke-dasharray="2 3"/><text class="point-time" x="${x + dx}" y="${plot.pad.top + 12}" text-anchor="${anchor}" fill="#1f2328">${text}</text>`;
}

/** The area between a line (each run between gaps) and the bottom of the plot. */
function areaUnder(points: Placed, bottom: number, color: string): Html {
  const areas = runsOf(points)
    .filter((run) => run.length > 1)
    .map((run) => `M${round(run[0]!.x)},${bottom} L${coordinates(run)} L${round(run.at(-1)!.x)},${bottom} Z`);
  return areas.length
    ? html`<path class="series-area" d="${areas.join(' ')}" fill="${color}" fill-opacity="0.08" stroke="none"/>`
    : html``;
}

function lastValueDot(points: TimedValue[], plot: Plot, color: string): Html {
  const last = points.findLast((point) => point.value !== null);
  if (!last) return html``;
  return html`<circle class="last-value" cx="${round(plot.xOf(last.time))}" cy="${round(plot.yOf(last.value!))}" r="2.5" fill="${color}"/>`;
}

/** A small line for a table cell (class `sparkline`), broken at gaps, a dot on the last value. */
export function renderSparklineSvg(points: TimeValue[], options: ChartWindow): Html {
  const { width = 140, height = 30 } = options;
  const from = options.from.getTime();
  const to = Math.max(options.to.getTime(), from + 1);
  const open = svgOpen('sparkline', width, height, options.title);
  const placed = placeable(points, from, to, Math.max(1, Math.floor(width / 2)));
  const extent = extentOf(placed.map((point) => point.value));
  if (!extent)
    return html`${open}<line x1="2" y1="${height / 2}" x2="${width - 2}" y2="${height / 2}" stroke="#d0d7de" stroke-dasharray="2 3"/></svg>`;
  const { low, high } = niceTicks(extent.low, extent.high, 2);
  const plot = plotOf(width, height, { left: 2, right: 2, top: 3, bottom: 3 }, from, to, low, high);
  const xy = placed.map((p) => ({ x: plot.xOf(p.time), y: p.value === null ? null : plot.yOf(p.value) }));
  const { d, drawn } = linePath(xy);
  return html`${open}<path class="spark-line" d="${d}" data-points="${drawn}" fill="none" stroke="#2563eb" stroke-width="1.4" stroke-linejoin="round"/>${lastValueDot(placed, plot, '#2563eb')}</svg>`;
}

export interface Bar {
  label: string;
  /** Exact decimal text in USD; null: unknown (no bar, marked). */
  value: string | null;
}

const BAR_ROW = 20;
const BAR_LABEL = 220;
const BAR_VALUE = 110;
const BAR_TOP = 26;

/** Horizontal bars from a zero line in the given order (class `bar positive|negative`), values as money. */
export function renderBarChartSvg(bars: Bar[], options: { title: string; width?: number }): Html {
  const { width = 760 } = options;
  const height = BAR_TOP + Math.max(1, bars.length) * BAR_ROW + 8;
  const open = svgOpen('report-chart bar-chart', width, height, options.title, html` data-bars="${bars.length}"`);
  if (bars.length === 0)
    return html`${open}<text class="empty" x="${width / 2}" y="${BAR_TOP + 12}" text-anchor="middle">nothing to chart</text></svg>`;
  const extent = extentOf([0, ...bars.map((bar) => finite(bar.value))])!;
  const plotWidth = width - BAR_LABEL - BAR_VALUE - 12;
  const xOf = (value: number) =>
    BAR_LABEL + (extent.high === extent.low ? 0 : ((value - extent.low) / (extent.high - extent.low)) * plotWidth);
  const zero = round(xOf(0));
  const rows = bars.map((bar, index) => {
    const y = BAR_TOP + index * BAR_ROW;
    const label = bar.label.length > 34 ? `${bar.label.slice(0, 33)}…` : bar.label;
    const value = finite(bar.value);
    const name = html`<text x="${BAR_LABEL - 8}" y="${y + 14}" text-anchor="end"><title>${bar.label}</title>${label}</text>`;
    if (value === null || bar.value === null)
      return html`${name}<g class="unknown"><text x="${width - 4}" y="${y + 14}" text-anchor="end">unknown</text></g>`;
    const x = round(Math.min(xOf(value), xOf(0)));
    const barWidth = Math.max(1, round(Math.abs(xOf(value) - xOf(0))));
    const sign = value < 0 ? 'negative' : 'positive';
    return html`${name}<rect class="bar ${sign}" x="${x}" y="${y + 3}" width="${barWidth}" height="${BAR_ROW - 6}" fill="${value < 0 ? '#cf222e' : '#1a7f37'}"/><text x="${width - 4}" y="${y + 14}" text-anchor="end"><title>${bar.value}</title>${formatUsd(bar.value)}</text>`;
  });
  return html`${open}<line class="zero" x1="${zero}" y1="${BAR_TOP - 4}" x2="${zero}" y2="${height - 4}" stroke="#8c959f"/>${rows}</svg>`;
}

type Ohlc<T> = Record<'open' | 'high' | 'low' | 'close', T | null>;
export type OhlcPoint = Ohlc<string> & { time: Date };
type DisplayBucket = Ohlc<number> & { start: number; end: number };

/** Consecutive buckets merged `size` at a time: first open, highest high, lowest low, last close. */
function mergeBuckets(points: OhlcPoint[], intervalMs: number, size: number): DisplayBucket[] {
  const merged: DisplayBucket[] = [];
  for (let i = 0; i < points.length; i += size) {
    const group = points.slice(i, i + size);
    // A bucket has all four prices or none (a gap).
    const priced = group.filter((point) => finite(point.close) !== null);
    merged.push({
      start: group[0]!.time.getTime(),
      end: group.at(-1)!.time.getTime() + intervalMs,
      open: priced.length ? finite(priced[0]!.open) : null,
      high: extentOf(priced.map((point) => finite(point.high)))?.high ?? null,
      low: extentOf(priced.map((point) => finite(point.low)))?.low ?? null,
      close: priced.length ? finite(priced.at(-1)!.close) : null,
    });
  }
  return merged;
}

/**
 * One token's OHLC buckets over [from, to): high–low lines (`ohlc-range`), open–close bodies when wide
 * enough, a close line (`ohlc-close`) broken at gaps, gaps shaded (`gap`). Past `maxBuckets` (default:
 * one per 3 pixels) buckets are merged.
 */
export function renderOhlcChartSvg(
  points: OhlcPoint[],
  options: ChartWindow & { intervalMs: number; maxBuckets?: number },
): Html {
  const { width = 760, height = 220, title } = options;
  const from = options.from.getTime();
  const to = Math.max(options.to.getTime(), from + 1);
  const maxBuckets = options.maxBuckets ?? Math.floor((width - PAD.left - PAD.right) / 3);
  const size = Math.ceil(points.length / maxBuckets) || 1;
  const buckets = mergeBuckets(points, options.intervalMs, size);
  const open = svgOpen('report-chart ohlc-chart', width, height, title, html` data-buckets="${buckets.length}"`);
  const extent = extentOf(buckets.flatMap((bucket) => [bucket.high, bucket.low]));
  if (!extent) return emptyChart(open, plotOf(width, height, PAD, from, to), 'no price in this range');
  const { low, high, ticks, step } = niceTicks(extent.low, extent.high, 5);
  const plot = plotOf(width, height, PAD, from, to, low, high);
  const xOf = (time: number) => plot.xOf(Math.min(time, to));
  const marks = buckets.map((b) => {
    const x0 = xOf(b.start);
    const x1 = xOf(b.end);
    const middle = round((x0 + x1) / 2);
    if (b.close === null)
      return html`<rect class="gap" x="${round(x0)}" y="${PAD.top}" width="${Math.max(0.5, round(x1 - x0))}" height="${plot.bottom - PAD.top}" fill="#cf222e" fill-opacity="0.08"/>`;
    const color = b.close >= b.open! ? '#1a7f37' : '#cf222e';
    const bodyWidth = (x1 - x0) * 0.6;
    const body =
      bodyWidth >= 3
        ? html`<rect class="ohlc-body" x="${round(middle - bodyWidth / 2)}" y="${round(plot.yOf(Math.max(b.open!, b.close)))}" width="${round(bodyWidth)}" height="${Math.max(1, round(Math.abs(plot.yOf(b.open!) - plot.yOf(b.close))))}" fill="${color}"/>`
        : '';
    return html`<line class="ohlc-range" x1="${middle}" y1="${round(plot.yOf(b.high!))}" x2="${middle}" y2="${round(plot.yOf(b.low!))}" stroke="${color}"/>${body}`;
  });
  const { d, drawn } = linePath(
    buckets.map((b) => ({ x: (xOf(b.start) + xOf(b.end)) / 2, y: b.close === null ? null : plot.yOf(b.close) })),
  );
  const priced = buckets.filter((bucket) => bucket.close !== null);
  // An OHLC bucket is drawn in the middle of [start, end), and named by its start.
  const [only] = priced;
  const single = priced.length === 1 ? singleTimeLabel(plot, (xOf(only!.start) + xOf(only!.end)) / 2, only!.start) : '';
  return html`${open}${timeAxis(plot)}${valueAxis(plot, ticks, step)}${single}${marks}<path class="ohlc-close" d="${d}" data-points="${drawn}" fill="none" stroke="#2563eb" stroke-width="1.2" stroke-opacity="0.7"/></svg>`;
}
