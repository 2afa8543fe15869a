import { html, type Html } from './html.ts';

export interface PricePoint {
  time: Date;
  /** Exact decimal string as stored; converted to a float for plotting only. */
  price: string;
}

export interface PriceChartOptions {
  /** The time window drawn on the x axis; points outside it are left out. */
  from: Date;
  to: Date;
  /** Accessible title of the chart, e.g. "SUI price, last 24 h". */
  title: string;
  width?: number;
  height?: number;
  /** More points than this are thinned to one per time bucket (the last of each). */
  maxPoints?: number;
}

const PADDING = { left: 70, right: 10, top: 10, bottom: 22 };
const X_TICKS = 4;

const priceLabel = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 6 });

function timeLabel(time: Date): string {
  return time.toISOString().slice(11, 16);
}

/** Keeps at most `maxPoints` points: the window is cut into equal buckets and the last point of each is kept. */
export function thinPoints<T extends { time: Date }>(points: T[], from: Date, to: Date, maxPoints: number): T[] {
  if (points.length <= maxPoints) return points;
  const span = to.getTime() - from.getTime();
  const kept = new Map<number, T>();
  for (const point of points) {
    const bucket = Math.min(maxPoints - 1, Math.floor(((point.time.getTime() - from.getTime()) / span) * maxPoints));
    kept.set(bucket, point);
  }
  return [...kept.entries()].sort((a, b) => a[0] - b[0]).map(([, point]) => point);
}

/**
 * An inline SVG line chart of one token's prices over a time window: a polyline with one vertex per
 * price (class `price-line`), the lowest and highest price on the y axis and UTC times on the x axis.
 * Pure: the same series and window always give the same markup.
 */
export function renderPriceChartSvg(series: PricePoint[], options: PriceChartOptions): Html {
  const width = options.width ?? 360;
  const height = options.height ?? 140;
  const from = options.from.getTime();
  const to = options.to.getTime();
  const plotWidth = width - PADDING.left - PADDING.right;
  const plotHeight = height - PADDING.top - PADDING.bottom;
  const inWindow = series
    .filter(
      (point) => point.time.getTime() >= from && point.time.getTime() <= to && Number.isFinite(Number(point.price)),
    )
    .sort((a, b) => a.time.getTime() - b.time.getTime());
  const points = thinPoints(inWindow, options.from, options.to, options.maxPoints ?? 720);

  const xTicks = Array.from({ length: X_TICKS + 1 }, (_, index) => {
    const x = PADDING.left + (plotWidth * index) / X_TICKS;
    const time = new Date(from + ((to - from) * index) / X_TICKS);
    const anchor = index === 0 ? 'start' : index === X_TICKS ? 'end' : 'middle';
    return html`<line class="grid" x1="${x}" y1="${PADDING.top}" x2="${x}" y2="${PADDING.top + plotHeight}" stroke="#eaeef2"/><text x="${x}" y="${height - 6}" text-anchor="${anchor}">${timeLabel(time)}</text>`;
  });
  const frame = html`<rect class="plot" x="${PADDING.left}" y="${PADDING.top}" width="${plotWidth}" height="${plotHeight}" fill="#ffffff" stroke="#d0d7de"/>${xTicks}`;
  const open = html`<svg class="price-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="10" fill="#57606a" role="img" aria-label="${options.title}"><title>${options.title}</title>`;

  if (points.length === 0) {
    return html`${open}${frame}<text class="empty" x="${PADDING.left + plotWidth / 2}" y="${PADDING.top + plotHeight / 2}" text-anchor="middle">no prices in this window</text></svg>`;
  }

  const values = points.map((point) => Number(point.price));
  let low = Math.min(...values);
  let high = Math.max(...values);
  const lowPoint = points[values.indexOf(low)]!;
  const highPoint = points[values.indexOf(high)]!;
  const flat = high === low;
  if (flat) {
    // A flat series is drawn across the middle instead of dividing by zero.
    const pad = Math.abs(high) * 0.01 || 1;
    low -= pad;
    high += pad;
  }
  const xOf = (time: Date) => PADDING.left + ((time.getTime() - from) / (to - from)) * plotWidth;
  const yOf = (value: number) => PADDING.top + (1 - (value - low) / (high - low)) * plotHeight;
  const round = (n: number) => Math.round(n * 10) / 10;
  const vertices = points.map((point, index) => `${round(xOf(point.time))},${round(yOf(values[index]!))}`);
  const last = points[points.length - 1]!;
  const bottom = PADDING.top + plotHeight;
  const area = `${round(xOf(points[0]!.time))},${bottom} ${vertices.join(' ')} ${round(xOf(last.time))},${bottom}`;

  const yLabel = (point: PricePoint) =>
    html`<text x="${PADDING.left - 6}" y="${round(yOf(Number(point.price))) + 4}" text-anchor="end">${priceLabel.format(Number(point.price))}</text>`;
  const yLabels = flat ? yLabel(highPoint) : html`${yLabel(highPoint)}${yLabel(lowPoint)}`;

  return html`${open}${frame}${yLabels}<polygon class="price-area" points="${area}" fill="#2563eb" fill-opacity="0.08"/><polyline class="price-line" points="${vertices.join(' ')}" data-points="${points.length}" fill="none" stroke="#2563eb" stroke-width="1.5" stroke-linejoin="round"/><circle class="price-last" cx="${round(xOf(last.time))}" cy="${round(yOf(Number(last.price)))}" r="2.5" fill="#2563eb"/></svg>`;
}
