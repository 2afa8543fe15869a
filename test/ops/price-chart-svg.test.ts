import { describe, expect, it } from 'vitest';
import { renderPriceChartSvg, thinPoints, type PricePoint } from '../../src/ops/price-chart-svg.ts';

const to = new Date('2024-05-02T12:00:00Z');
const from = new Date(to.getTime() - 24 * 3600_000);
const at = (hoursBeforeEnd: number) => new Date(to.getTime() - hoursBeforeEnd * 3600_000);

function vertices(svg: string): [number, number][] {
  const match = /<polyline class="price-line" points="([^"]*)"/.exec(svg);
  if (!match) throw new Error('no price-line polyline in the chart');
  return match[1]!.split(' ').map((pair) => pair.split(',').map(Number) as [number, number]);
}

describe('renderPriceChartSvg', () => {
  it('draws one vertex per price, left to right in time, higher prices higher up', () => {
    const series: PricePoint[] = [
      { time: at(20), price: '1.50' },
      { time: at(2), price: '3.25' },
      { time: at(12), price: '0.75' },
      { time: at(0), price: '2' },
    ];
    const svg = renderPriceChartSvg(series, { from, to, title: 'SUI price' }).text;
    const points = vertices(svg);
    expect(points).toHaveLength(4);
    const xs = points.map(([x]) => x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    const ys = points.map(([, y]) => y);
    // In time order the prices are 1.50, 0.75, 3.25, 2: 3.25 highest (smallest y), 0.75 lowest.
    expect(Math.min(...ys)).toBe(ys[2]);
    expect(Math.max(...ys)).toBe(ys[1]);
    expect(svg).toContain('data-points="4"');
    expect(svg).toContain('>3.25</text>');
    expect(svg).toContain('>0.75</text>');
    expect(svg).toContain('<title>SUI price</title>');
  });

  it('places the vertices by time inside the plot area', () => {
    const svg = renderPriceChartSvg(
      [
        { time: from, price: '1' },
        { time: at(12), price: '2' },
        { time: to, price: '3' },
      ],
      { from, to, title: 't', width: 370, height: 140 },
    ).text;
    const [first, middle, last] = vertices(svg);
    // Plot area: x from 70 to 360 (padding 70 left, 10 right).
    expect(first![0]).toBe(70);
    expect(middle![0]).toBe(215);
    expect(last![0]).toBe(360);
  });

  it('leaves out prices outside the window', () => {
    const svg = renderPriceChartSvg(
      [
        { time: at(30), price: '9' },
        { time: at(5), price: '1' },
        { time: at(1), price: '2' },
        { time: new Date(to.getTime() + 60_000), price: '9' },
      ],
      { from, to, title: 't' },
    ).text;
    expect(vertices(svg)).toHaveLength(2);
    expect(svg).not.toContain('>9</text>');
  });

  it('draws a flat series across the middle with one price label', () => {
    const svg = renderPriceChartSvg(
      [
        { time: at(3), price: '0.5' },
        { time: at(2), price: '0.5' },
        { time: at(1), price: '0.5' },
      ],
      { from, to, title: 't' },
    ).text;
    const ys = vertices(svg).map(([, y]) => y);
    expect(new Set(ys).size).toBe(1);
    expect(svg.match(/>0\.5<\/text>/g)).toHaveLength(1);
  });

  it('says so when there is no price in the window', () => {
    const svg = renderPriceChartSvg([], { from, to, title: 't' }).text;
    expect(svg).not.toContain('price-line');
    expect(svg).toContain('no prices in this window');
  });

  it('escapes the title', () => {
    const svg = renderPriceChartSvg([], { from, to, title: '<script>"x"</script>' }).text;
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;&quot;x&quot;&lt;/script&gt;');
  });

  it('thins long series to at most maxPoints vertices', () => {
    const series = Array.from({ length: 1440 }, (_, minute) => ({
      time: new Date(from.getTime() + minute * 60_000),
      price: String(minute),
    }));
    const svg = renderPriceChartSvg(series, { from, to, title: 't', maxPoints: 288 }).text;
    expect(vertices(svg)).toHaveLength(288);
  });
});

describe('thinPoints', () => {
  it('keeps a short series as it is', () => {
    const points = [{ time: at(2) }, { time: at(1) }];
    expect(thinPoints(points, from, to, 10)).toBe(points);
  });

  it('keeps the last point of each time bucket', () => {
    const points = [0, 1, 2, 5, 13, 23].map((hours) => ({ time: new Date(from.getTime() + hours * 3600_000), hours }));
    // Four buckets of six hours: [0,6) -> 5, [6,12) -> none, [12,18) -> 13, [18,24] -> 23.
    expect(thinPoints(points, from, to, 4).map((point) => point.hours)).toEqual([5, 13, 23]);
  });
});
