import { describe, expect, it } from 'vitest';
import {
  renderBarChartSvg,
  renderOhlcChartSvg,
  renderSparklineSvg,
  renderTimeChartSvg,
  type TimeValue,
} from '../../src/ops/charts.ts';

const from = new Date('2026-11-21T00:00:00Z');
const hour = 3_600_000;
const at = (hours: number) => new Date(from.getTime() + hours * hour);

/** The vertices of a path's subpaths: [[x, y], ...] per "M ... L ..." run. */
function subpaths(svg: string, className: string): [number, number][][] {
  const d = new RegExp(`<path class="[^"]*${className}[^"]*" d="([^"]*)"`).exec(svg)?.[1];
  if (d === undefined) throw new Error(`no path ${className}`);
  return d
    .split('M')
    .filter(Boolean)
    .map((run) =>
      run
        .trim()
        .split(/ ?L/)
        .map((pair) => pair.split(',').map(Number) as [number, number]),
    );
}

const labels = (svg: string, axis: 'x' | 'y') =>
  [...svg.matchAll(new RegExp(`<text class="${axis}-tick"[^>]*>([^<]*)</text>`, 'g'))].map((match) => match[1]);

const series = (points: TimeValue[]) => [{ name: 'total', className: 'series-total', color: '#2563eb', points }];

describe('renderTimeChartSvg', () => {
  it('draws each series left to right, breaking the line at gaps', () => {
    const svg = renderTimeChartSvg(
      series([
        { time: at(0), value: null },
        { time: at(1), value: '10' },
        { time: at(2), value: '12.5' },
        { time: at(3), value: null },
        { time: at(4), value: '11' },
      ]),
      { from, to: at(4), title: 'value' },
    ).text;
    const runs = subpaths(svg, 'series-total');
    expect(runs.map((run) => run.length)).toEqual([2, 1]);
    const [[a, b], [c]] = runs as [[number, number][], [number, number][]];
    expect(a![0]).toBeLessThan(b![0]);
    expect(b![0]).toBeLessThan(c![0]);
    // 12.5 is the highest value: the smallest y.
    expect(b![1]).toBeLessThan(a![1]);
    expect(svg).toContain('data-points="3"');
    expect(svg).not.toContain('<script');
  });

  it('labels the value axis on round figures and the time axis on round times', () => {
    const svg = renderTimeChartSvg(
      series([
        { time: at(0), value: '2999.65' },
        { time: at(24), value: '569930' },
      ]),
      { from, to: at(48), title: 'value' },
    ).text;
    expect(labels(svg, 'y')).toEqual(['$0', '$100K', '$200K', '$300K', '$400K', '$500K', '$600K']);
    expect(labels(svg, 'x')).toEqual(['11-21 00:00', '11-21 12:00', '11-22 00:00', '11-22 12:00', '11-23 00:00']);
  });

  it('draws 100,000 points thinned to about two per pixel, their extremes kept, in a small SVG', () => {
    const points = Array.from({ length: 100_000 }, (_, i) => ({
      time: new Date(from.getTime() + i * 600_000),
      value: String(1000 + (i % 97)),
    }));
    points[66_666] = { time: points[66_666]!.time, value: '250000.5' };
    const to = points.at(-1)!.time;
    const started = performance.now();
    const svg = renderTimeChartSvg(series(points), { from, to, title: 'a long range' }).text;
    expect(performance.now() - started).toBeLessThan(5_000);
    const drawn = Number(/data-points="(\d+)"/.exec(svg)![1]);
    // 672 pixels of plot: 336 buckets, at most four points each.
    expect(drawn).toBeLessThanOrEqual(4 * 336);
    expect(drawn).toBeGreaterThan(336);
    expect(svg.length).toBeLessThan(60_000);
    // The one spike sets the top of the axis.
    expect(labels(svg, 'y').at(-1)).toBe('$300K');
    // 694 days from 2026-11-21: half-yearly ticks.
    expect(labels(svg, 'x')).toEqual(['2027-01', '2027-07', '2028-01', '2028-07']);
  });

  it('draws a flat series across the middle', () => {
    const svg = renderTimeChartSvg(
      series([
        { time: at(0), value: '0.5' },
        { time: at(1), value: '0.5' },
        { time: at(2), value: '0.5' },
      ]),
      { from, to: at(2), title: 'flat', height: 240 },
    ).text;
    const ys = subpaths(svg, 'series-total')[0]!.map(([, y]) => y);
    expect(new Set(ys).size).toBe(1);
    // The plot spans y 26 to 216: its middle is 121.
    expect(ys[0]).toBeCloseTo(121, 0);
    expect(labels(svg, 'y')).toContain('$0.500');
  });

  it('shades the area under the line and dots the last value when asked (the status page)', () => {
    const svg = renderTimeChartSvg(
      series([
        { time: at(1), value: '1' },
        { time: at(2), value: '2' },
      ]),
      { from, to: at(3), title: 't', compact: true, area: true, className: 'price-chart' },
    ).text;
    expect(svg).toContain('<svg class="price-chart"');
    expect(svg).toContain('class="series-area"');
    expect(svg).toContain('class="last-value"');
  });

  it('leaves out values outside [from, to]', () => {
    const svg = renderTimeChartSvg(
      series([
        { time: at(-5), value: '9' },
        { time: at(1), value: '1' },
        { time: at(2), value: '2' },
        { time: at(9), value: '9' },
      ]),
      { from, to: at(3), title: 't' },
    ).text;
    expect(svg).toContain('data-points="2"');
  });

  it('draws no NaN or Infinity whatever the values (a stored price of 1.7e308, a negative one): they are no points', () => {
    const points: TimeValue[] = [
      { time: at(1), value: '3.2' },
      { time: at(2), value: '1.7e308' },
      { time: at(3), value: '-5' },
      { time: at(4), value: '3.3' },
      { time: at(5), value: '-1.7e308' },
    ];
    const window = { from, to: at(6), title: 'hostile' };
    const line = renderTimeChartSvg([{ name: 'p', className: 'p', color: '#000', points }], {
      ...window,
      compact: true,
      area: true,
    }).text;
    const sparkline = renderSparklineSvg(points, window).text;
    for (const svg of [line, sparkline]) expect(svg).not.toMatch(/NaN|Infinity/);
    expect(subpaths(line, 'p').flat()).toHaveLength(3);
  });

  it('says so when there is no value at all, and escapes the title', () => {
    const svg = renderTimeChartSvg(series([]), { from, to: at(1), title: '<script>"x"</script>' }).text;
    expect(svg).toContain('no value in this range');
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;&quot;x&quot;&lt;/script&gt;');
  });
});

describe('renderBarChartSvg', () => {
  it('draws positive bars green and negative red from one zero line, values as money, unknown ones as text', () => {
    const svg = renderBarChartSvg(
      [
        { label: 'gain', value: '100' },
        { label: 'loss', value: '-50.125' },
        { label: 'unknown', value: null },
      ],
      { title: 'PnL' },
    ).text;
    expect(svg).toContain('data-bars="3"');
    const positive = /<rect class="bar positive" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(svg)!;
    const negative = /<rect class="bar negative" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(svg)!;
    // The loss ends where the gain starts (the zero line), and is half as long.
    expect(Math.abs(Number(negative[1]) + Number(negative[2]) - Number(positive[1]))).toBeLessThan(1);
    expect(Math.abs(Number(negative[2]) * 2 - Number(positive[2]))).toBeLessThan(1);
    expect(svg).toContain('<title>-50.125</title>($50.13)');
    expect(svg).toContain('<g class="unknown">');
  });

  it('escapes labels', () => {
    expect(renderBarChartSvg([{ label: '<b>x</b>', value: '1' }], { title: 't' }).text).toContain(
      '&lt;b&gt;x&lt;/b&gt;',
    );
  });
});

describe('renderOhlcChartSvg', () => {
  const bucket = (hours: number, open: string, high: string, low: string, close: string) => ({
    time: at(hours),
    open,
    high,
    low,
    close,
  });
  const gap = (hours: number) => ({ time: at(hours), open: null, high: null, low: null, close: null });

  it('draws a high-low line per bucket, a shaded gap, and a close line broken at the gap', () => {
    const svg = renderOhlcChartSvg(
      [bucket(0, '1', '3', '0.5', '2'), gap(1), bucket(2, '2', '2.5', '1.5', '1.8'), bucket(3, '1.8', '2', '1', '1.2')],
      { from, to: at(4), intervalMs: hour, title: 'SUI' },
    ).text;
    expect(svg.match(/class="ohlc-range"/g)).toHaveLength(3);
    expect(svg.match(/class="gap"/g)).toHaveLength(1);
    expect(svg.match(/class="ohlc-body"/g)).toHaveLength(3);
    expect(subpaths(svg, 'ohlc-close').map((run) => run.length)).toEqual([1, 2]);
  });

  it('merges buckets beyond the most it draws: highest high, lowest low, last close', () => {
    const points = Array.from({ length: 100_000 }, (_, i) => bucket(i, '1', String(2 + (i % 7)), '0.5', '1'));
    const svg = renderOhlcChartSvg(points, {
      from,
      to: at(100_000),
      intervalMs: hour,
      title: 'SUI',
      maxBuckets: 100,
    }).text;
    expect(svg).toContain('data-buckets="100"');
    expect(svg.match(/class="ohlc-range"/g)).toHaveLength(100);
    // The top label: the highest high of all buckets (8), on a round tick.
    expect(labels(svg, 'y').at(-1)).toBe('$8');
  });
});

describe('a chart with a single point', () => {
  const pointTime = (svg: string) =>
    [...svg.matchAll(/<text class="point-time" x="([\d.]+)"[^>]*text-anchor="(\w+)"[^>]*>([^<]*)<\/text>/g)].map(
      ([, x, anchor, text]) => ({ x: Number(x), anchor, text }),
    );

  it('labels its time in full, where the point is, inside the plot', () => {
    // The only value in the middle of a day, of two series at one time (a single refresh), and a
    // report whose range is one instant.
    const middle = renderTimeChartSvg(
      [...series([{ time: at(12), value: '472051.09' }]), { ...series([{ time: at(12), value: '1' }])[0]!, name: 'b' }],
      { from, to: at(24), title: 'one refresh' },
    ).text;
    expect(pointTime(middle)).toEqual([{ x: 408, anchor: 'middle', text: '2026-11-21 12:00 UTC' }]);
    expect(middle).toMatch(/<line class="point-time-line" x1="408" y1="26" x2="408" y2="216"/);
    const instant = renderTimeChartSvg(series([{ time: at(3), value: '5' }]), { from: at(3), to: at(3), title: 'now' });
    expect(pointTime(instant.text)).toEqual([{ x: 76, anchor: 'start', text: '2026-11-21 03:00 UTC' }]);
    const atEnd = renderTimeChartSvg(series([{ time: at(24), value: '5' }]), { from, to: at(24), title: 'end' });
    expect(pointTime(atEnd.text)).toEqual([{ x: 740, anchor: 'end', text: '2026-11-22 00:00 UTC' }]);
  });

  it('labels a lone OHLC bucket by its start; two points or buckets need no label', () => {
    const ohlc = renderOhlcChartSvg(
      [
        { time: at(5), open: '1', high: '1.2', low: '0.9', close: '1.1' },
        { time: at(6), open: null, high: null, low: null, close: null },
      ],
      { from: at(5), to: at(7), intervalMs: hour, title: 'SUI' },
    ).text;
    expect(pointTime(ohlc).map((label) => label.text)).toEqual(['2026-11-21 05:00 UTC']);
    const two = series([
      { time: at(1), value: '1' },
      { time: at(2), value: '2' },
    ]);
    expect(renderTimeChartSvg(two, { from, to: at(24), title: 'two' }).text).not.toContain('point-time');
    expect(
      renderOhlcChartSvg(
        [
          { time: at(5), open: '1', high: '1.2', low: '0.9', close: '1.1' },
          { time: at(6), open: '1', high: '1.2', low: '0.9', close: '1.1' },
        ],
        { from: at(5), to: at(7), intervalMs: hour, title: 'SUI' },
      ).text,
    ).not.toContain('point-time');
  });
});

describe('renderSparklineSvg', () => {
  it('draws the known values, with a dashed line when there is none', () => {
    const svg = renderSparklineSvg(
      [
        { time: at(0), value: null },
        { time: at(4), value: '1' },
        { time: at(8), value: '2' },
      ],
      { from, to: at(8), title: 'total' },
    ).text;
    expect(svg).toMatch(/<path class="spark-line" d="M[\d.]+,[\d.]+ L[\d.]+,[\d.]+" data-points="2"/);
    expect(renderSparklineSvg([], { from, to: at(8), title: 'none' }).text).toContain('stroke-dasharray');
  });
});
