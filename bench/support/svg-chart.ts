/** One line of a chart: its name and a value per x (null: not measured). */
export interface ChartSeries {
  name: string;
  values: (number | null)[];
}

const WIDTH = 720;
const HEIGHT = 360;
const MARGIN = { left: 70, right: 180, top: 36, bottom: 40 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#17becf'];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A small line chart as SVG text: x is the simulated day (1..n), y from 0 to the largest value. */
export function lineChartSvg(title: string, unit: string, series: ChartSeries[]): string {
  const days = Math.max(1, ...series.map((line) => line.values.length));
  const top = Math.max(...series.flatMap((line) => line.values.filter((v): v is number => v !== null)), 0) || 1;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (day: number) => MARGIN.left + (days === 1 ? plotW / 2 : (day * plotW) / (days - 1));
  const y = (value: number) => MARGIN.top + plotH - (value / top) * plotH;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="20" font-size="14">${escape(title)}</text>`,
    `<line x1="${MARGIN.left}" y1="${y(0)}" x2="${MARGIN.left + plotW}" y2="${y(0)}" stroke="#444"/>`,
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${y(0)}" stroke="#444"/>`,
  ];
  for (let tick = 0; tick <= 4; tick++) {
    const value = (top * tick) / 4;
    parts.push(
      `<text x="${MARGIN.left - 6}" y="${y(value) + 4}" text-anchor="end">${formatValue(value)}</text>`,
      `<line x1="${MARGIN.left}" y1="${y(value)}" x2="${MARGIN.left + plotW}" y2="${y(value)}" stroke="#eee"/>`,
    );
  }
  const every = Math.max(1, Math.ceil(days / 10));
  for (let day = 0; day < days; day += every) {
    parts.push(`<text x="${x(day)}" y="${y(0) + 16}" text-anchor="middle">${day + 1}</text>`);
  }
  parts.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 6}" text-anchor="middle">simulated day</text>`,
    `<text x="12" y="${MARGIN.top - 10}">${escape(unit)}</text>`,
  );
  series.forEach((line, index) => {
    const colour = COLOURS[index % COLOURS.length]!;
    const points = line.values
      .map((value, day) => (value === null ? null : `${x(day).toFixed(1)},${y(value).toFixed(1)}`))
      .filter((point): point is string => point !== null);
    if (points.length > 1) {
      parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.join(' ')}"/>`);
    }
    for (const point of points) {
      const [cx, cy] = point.split(',');
      parts.push(`<circle cx="${cx}" cy="${cy}" r="2.5" fill="${colour}"/>`);
    }
    const legendY = MARGIN.top + index * 16;
    parts.push(
      `<rect x="${WIDTH - MARGIN.right + 12}" y="${legendY - 8}" width="10" height="10" fill="${colour}"/>`,
      `<text x="${WIDTH - MARGIN.right + 26}" y="${legendY + 1}">${escape(line.name)}</text>`,
    );
  });
  parts.push('</svg>', '');
  return parts.join('\n');
}

function formatValue(value: number): string {
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}
