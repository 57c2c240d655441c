// The latency-against-rate chart (chart.svg): one panel per scenario, the
// baseline handler first, with achieved requests per second across and
// latency up (log scale, shared by every panel so they compare at a glance).
// Colour is the server set-up (workers, cache mode); line style and marker
// the percentile: p99 solid with dots, p95 dashed with rings, p50 dotted with
// squares. Self-contained SVG: no scripts, fonts or links, so any browser or
// image viewer opens it.
import { BASELINE, BASELINE_TABLES, type BenchRow } from './report.ts';

const PANEL_WIDTH = 560;
const PANEL_HEIGHT = 340;
const PLOT = { left: 64, right: 20, top: 34, bottom: 46 };
const COLUMNS = 2;
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
const PERCENTILES = [
  { key: 'p99', dash: '', width: 2.2, marker: 'filled' },
  { key: 'p95', dash: '7 4', width: 1.6, marker: 'ring' },
  { key: 'p50', dash: '2 3', width: 1.6, marker: 'square' },
] as const;

/** A point's marker: the shape tells the percentile apart where there is no line (a single load step). */
function marker(shape: (typeof PERCENTILES)[number]['marker'], cx: number, cy: number, colour: string, title: string): string {
  const [x, y] = [cx.toFixed(1), cy.toFixed(1)];
  const centre = `data-x="${x}" data-y="${y}"`;
  const tooltip = `<title>${escapeXml(title)}</title>`;
  if (shape === 'filled') return `<circle ${centre} cx="${x}" cy="${y}" r="3.5" fill="${colour}">${tooltip}</circle>`;
  if (shape === 'ring') return `<circle ${centre} cx="${x}" cy="${y}" r="3.5" fill="#fff" stroke="${colour}" stroke-width="1.6">${tooltip}</circle>`;
  return `<rect ${centre} x="${(cx - 3).toFixed(1)}" y="${(cy - 3).toFixed(1)}" width="6" height="6" fill="${colour}">${tooltip}</rect>`;
}

export interface ChartOptions {
  title: string;
  subtitle: string;
  /** Scenario order for the panels (the baseline comes first regardless). */
  scenarios: readonly string[];
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** 1, 2 or 5 times a power of ten, at least `value`. */
function niceStep(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= value) ?? 10 * power;
}

function seriesLabel(row: BenchRow): string {
  const workers = `${row.workers} worker${row.workers === 1 ? '' : 's'}`;
  return row.cache === null ? `${workers}, baseline` : `${workers}, cache ${row.cache}`;
}

function formatMs(value: number): string {
  return value >= 1 ? String(Number(value.toPrecision(3))) : String(Number(value.toPrecision(2)));
}

interface Axes {
  xMax: number;
  xStep: number;
  yMinLog: number;
  yMaxLog: number;
}

function axesFor(rows: readonly BenchRow[]): Axes {
  const latencies = rows.flatMap((r) => [r.p50, r.p95, r.p99]).filter((v) => Number.isFinite(v) && v > 0);
  const xStep = niceStep(Math.max(1, ...rows.map((r) => r.rps)) * 1.05 / 5);
  const xMax = xStep * Math.ceil(Math.max(1, ...rows.map((r) => r.rps)) * 1.05 / xStep);
  const yMinLog = Math.floor(Math.log10(Math.min(...latencies, 1)));
  const yMaxLog = Math.max(yMinLog + 1, Math.ceil(Math.log10(Math.max(...latencies, 1))));
  return { xMax, xStep, yMinLog, yMaxLog };
}

function panel(scenario: string, rows: readonly BenchRow[], axes: Axes, colourOf: (row: BenchRow) => string, x0: number, y0: number): string {
  const width = PANEL_WIDTH - PLOT.left - PLOT.right;
  const height = PANEL_HEIGHT - PLOT.top - PLOT.bottom;
  const left = x0 + PLOT.left;
  const top = y0 + PLOT.top;
  const x = (rps: number) => left + (rps / axes.xMax) * width;
  const y = (ms: number) => top + height - ((Math.log10(ms) - axes.yMinLog) / (axes.yMaxLog - axes.yMinLog)) * height;
  const parts: string[] = [];
  const title = scenario === BASELINE ? 'baseline: node:http + one pg query' : scenario === BASELINE_TABLES ? 'baseline: the JSON assembled by Postgres from the base tables' : scenario;
  parts.push(`<text x="${left}" y="${y0 + 22}" font-size="15" font-weight="bold">${escapeXml(title)}</text>`);
  parts.push(`<rect x="${left}" y="${top}" width="${width}" height="${height}" fill="#fff" stroke="#999"/>`);
  for (let v = 0; v <= axes.xMax + 1e-9; v += axes.xStep) {
    parts.push(`<line x1="${x(v)}" y1="${top}" x2="${x(v)}" y2="${top + height}" stroke="#eee"/>`);
    parts.push(`<text x="${x(v)}" y="${top + height + 16}" font-size="11" text-anchor="middle">${v}</text>`);
  }
  for (let power = axes.yMinLog; power <= axes.yMaxLog; power++) {
    for (const m of [1, 2, 5]) {
      const ms = m * 10 ** power;
      if (Math.log10(ms) > axes.yMaxLog + 1e-9) continue;
      parts.push(`<line x1="${left}" y1="${y(ms)}" x2="${left + width}" y2="${y(ms)}" stroke="${m === 1 ? '#ddd' : '#f2f2f2'}"/>`);
      parts.push(`<text x="${left - 6}" y="${y(ms) + 4}" font-size="11" text-anchor="end">${formatMs(ms)}</text>`);
    }
  }
  parts.push(`<text x="${left + width / 2}" y="${top + height + 36}" font-size="12" text-anchor="middle">achieved requests per second</text>`);
  parts.push(`<text transform="translate(${x0 + 16} ${top + height / 2}) rotate(-90)" font-size="12" text-anchor="middle">latency, ms (log)</text>`);
  const series = new Map<string, BenchRow[]>();
  for (const row of rows) series.set(seriesLabel(row), [...(series.get(seriesLabel(row)) ?? []), row]);
  for (const [label, points] of series) {
    const sorted = [...points].sort((a, b) => a.rps - b.rps);
    const colour = colourOf(sorted[0]!);
    for (const percentile of PERCENTILES) {
      const visible = sorted.filter((r) => Number.isFinite(r[percentile.key]) && r[percentile.key] > 0);
      if (visible.length === 0) continue;
      const path = visible.map((r, i) => `${i === 0 ? 'M' : 'L'}${x(r.rps).toFixed(1)},${y(r[percentile.key]).toFixed(1)}`).join(' ');
      parts.push(`<path d="${path}" fill="none" stroke="${colour}" stroke-width="${percentile.width}"${percentile.dash ? ` stroke-dasharray="${percentile.dash}"` : ''}><title>${escapeXml(`${label} ${percentile.key}`)}</title></path>`);
      for (const r of visible) {
        parts.push(marker(percentile.marker, x(r.rps), y(r[percentile.key]), colour, `${label}: ${r.rps.toFixed(0)}/s, ${percentile.key} ${r[percentile.key].toFixed(2)} ms`));
      }
    }
  }
  return `<g class="panel" data-scenario="${escapeXml(scenario)}">${parts.join('')}</g>`;
}

/** Series labels in reading order: by worker count, the baseline first, then cache off, memory, redis. */
function seriesOrder(rows: readonly BenchRow[]): string[] {
  const rank = (row: BenchRow) => row.workers * 10 + ['off', 'memory', 'redis'].indexOf(row.cache ?? '');
  return [...new Map([...rows].sort((a, b) => rank(a) - rank(b)).map((row) => [seriesLabel(row), row])).keys()];
}

/** The legend (colours for the series, then line styles and markers for the percentiles), wrapped to `width`; returns its bottom. */
function legend(labels: readonly string[], width: number): { svg: string[]; bottom: number } {
  const svg: string[] = [];
  let [lx, ly] = [20, 64];
  for (const [i, label] of labels.entries()) {
    const entryWidth = 34 + label.length * 7;
    if (lx + entryWidth > width - 10 && lx > 20) [lx, ly] = [20, ly + 20];
    svg.push(`<rect x="${lx}" y="${ly}" width="14" height="14" fill="${COLOURS[i % COLOURS.length]}"/><text x="${lx + 20}" y="${ly + 12}" font-size="12">${escapeXml(label)}</text>`);
    lx += entryWidth;
  }
  [lx, ly] = [20, ly + 28];
  for (const percentile of PERCENTILES) {
    svg.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 34}" y2="${ly}" stroke="#333" stroke-width="${percentile.width}"${percentile.dash ? ` stroke-dasharray="${percentile.dash}"` : ''}/>`,
      marker(percentile.marker, lx + 17, ly, '#333', percentile.key),
      `<text x="${lx + 40}" y="${ly + 4}" font-size="12">${percentile.key}</text>`);
    lx += 90;
  }
  return { svg, bottom: ly + 12 };
}

/** The chart as a standalone SVG document. */
export function latencyChart(rows: readonly BenchRow[], options: ChartOptions): string {
  const scenarios = [BASELINE, BASELINE_TABLES, ...options.scenarios].filter((s) => rows.some((r) => r.scenario === s));
  const columns = Math.min(COLUMNS, Math.max(1, scenarios.length));
  const width = columns * PANEL_WIDTH + 20;
  const labels = seriesOrder(rows);
  const key = legend(labels, width);
  const top = key.bottom + 8;
  const height = top + Math.ceil(scenarios.length / columns) * PANEL_HEIGHT + 10;
  const axes = axesFor(rows);
  const colourOf = (row: BenchRow) => COLOURS[labels.indexOf(seriesLabel(row)) % COLOURS.length]!;
  const panels = scenarios.map((scenario, i) => panel(scenario, rows.filter((r) => r.scenario === scenario), axes, colourOf,
    10 + (i % columns) * PANEL_WIDTH, top + Math.floor(i / columns) * PANEL_HEIGHT));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#fafafa"/>`,
    `<text x="20" y="30" font-size="19" font-weight="bold">${escapeXml(options.title)}</text>`,
    `<text x="20" y="50" font-size="12" fill="#444">${escapeXml(options.subtitle)}</text>`,
    ...key.svg,
    ...panels,
    '</svg>',
  ].join('\n');
}
