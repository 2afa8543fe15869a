import { describe, expect, it } from 'vitest';
import {
  renderBarChartSvg,
  renderOhlcChartSvg,
  renderSparklineSvg,
  renderTimeChartSvg,
} from '../../src/ops/report-charts.ts';

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

describe('renderTimeChartSvg', () => {
  it('draws each series left to right, breaking the line at gaps', () => {
    const svg = renderTimeChartSvg(
      [
        {
          name: 'total',
          className: 'series-total',
          color: '#2563eb',
          points: [
            { time: at(0), value: null },
            { time: at(1), value: '10' },
            { time: at(2), value: '12.5' },
            { time: at(3), value: null },
            { time: at(4), value: '11' },
          ],
        },
      ],
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

  it('says so when there is no value at all', () => {
    const svg = renderTimeChartSvg([{ name: 't', className: 's', color: '#000', points: [] }], {
      from,
      to: at(1),
      title: 'empty',
    }).text;
    expect(svg).toContain('no value in this range');
  });
});

describe('renderBarChartSvg', () => {
  it('draws positive bars green and negative red from one zero line, unknown ones as text', () => {
    const svg = renderBarChartSvg(
      [
        { label: 'gain', value: '100' },
        { label: 'loss', value: '-50' },
        { label: 'unknown', value: null },
      ],
      { title: 'PnL' },
    ).text;
    expect(svg).toContain('data-bars="3"');
    const positive = /<rect class="bar positive" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(svg)!;
    const negative = /<rect class="bar negative" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(svg)!;
    // The loss ends where the gain starts (the zero line), and is half as long.
    expect(Number(negative[1]) + Number(negative[2])).toBeCloseTo(Number(positive[1]), 0);
    expect(Number(negative[2]) * 2).toBeCloseTo(Number(positive[2]), 0);
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
    const points = Array.from({ length: 1000 }, (_, i) => bucket(i, '1', String(2 + (i % 7)), '0.5', '1'));
    const svg = renderOhlcChartSvg(points, {
      from,
      to: at(1000),
      intervalMs: hour,
      title: 'SUI',
      maxBuckets: 100,
    }).text;
    expect(svg).toContain('data-buckets="100"');
    expect(svg.match(/class="ohlc-range"/g)).toHaveLength(100);
    expect(svg).toContain('>8<'); // the top label: the highest high of all buckets
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
