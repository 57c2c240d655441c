// The latency-against-rate chart: panels, where the points land (log scale for
// latency), a self-contained SVG, and a PNG that actually shows it.
import { describe, expect, it } from 'vitest';
import { latencyChart } from '../../bench/lib/chart.ts';
import { renderPng } from '../../bench/lib/png.ts';
import { BASELINE, type BenchRow } from '../../bench/lib/report.ts';
import { benchRow } from './rows.ts';

const rows: BenchRow[] = [
  benchRow({ scenario: 'rest-styles', workers: 1, cache: 'off', load: { rate: 500 }, rps: 500, p50: 1, p95: 10, p99: 100 }),
  benchRow({ scenario: 'rest-styles', workers: 1, cache: 'off', load: { rate: 1000 }, rps: 1000, p50: 2, p95: 20, p99: 200 }),
  benchRow({ scenario: 'graphql-product-styles', workers: 2, cache: 'off', load: { rate: 500 }, rps: 480, p50: 3, p95: 8, p99: 15 }),
  benchRow({ scenario: BASELINE, workers: 1, cache: null, load: { rate: 500 }, rps: 500, p50: 0.5, p95: 1, p99: 2 }),
  benchRow({ scenario: BASELINE, workers: 1, cache: null, load: { rate: 1000 }, rps: 1000, p50: 0.6, p95: 1.5, p99: 3 }),
];
const svg = latencyChart(rows, { title: 'Latency & rate', subtitle: 'made-up figures', scenarios: ['graphql-product-styles', 'rest-styles', 'rest-products-page'] });

/** The centre of the point whose tooltip is `title`. */
function point(title: string): { x: number; y: number } {
  const match = new RegExp(`data-x="([\\d.]+)" data-y="([\\d.]+)"[^>]*><title>${title}</title>`).exec(svg);
  if (!match) throw new Error(`no point "${title}"`);
  return { x: Number(match[1]), y: Number(match[2]) };
}

describe('latency chart', () => {
  it('has one panel per measured scenario, the baseline first', () => {
    expect([...svg.matchAll(/data-scenario="([^"]+)"/g)].map((m) => m[1])).toEqual([BASELINE, 'graphql-product-styles', 'rest-styles']);
    expect(svg).toContain('Latency &amp; rate');
  });

  it('puts rate across and latency up on a log scale shared by every panel', () => {
    const p50 = point('1 worker, cache off: 500/s, p50 1.00 ms');
    const p95 = point('1 worker, cache off: 500/s, p95 10.00 ms');
    const p99 = point('1 worker, cache off: 500/s, p99 100.00 ms');
    const faster = point('1 worker, cache off: 1000/s, p99 200.00 ms');
    expect(p99.y).toBeLessThan(p95.y);
    // Each tenfold is the same height.
    expect(p50.y - p95.y).toBeCloseTo(p95.y - p99.y, 0);
    expect(faster.x).toBeGreaterThan(p99.x);
    // Panels side by side share the axes: the same latency at the same height.
    const baseline = point('1 worker, baseline: 1000/s, p99 3.00 ms');
    const graphql = point('2 workers, cache off: 480/s, p50 3.00 ms');
    expect(baseline.y).toBe(graphql.y);
    expect(point('1 worker, baseline: 500/s, p99 2.00 ms').y).toBeGreaterThan(graphql.y);
  });

  it('is a standalone document: nothing fetched, nothing run', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toMatch(/href|<script|@import|url\(/);
  });

  it('renders to a PNG twice its size, with the series drawn and the text set', () => {
    const png = renderPng(svg);
    expect(png.data.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const [, width, height] = /width="(\d+)" height="(\d+)"/.exec(svg)!.map(Number);
    expect([png.width, png.height]).toEqual([2 * width!, 2 * height!]);
    let seriesPixels = 0;
    let darkPixels = 0;
    for (let i = 0; i < png.pixels.length; i += 4) {
      const [r, g, b] = [png.pixels[i]!, png.pixels[i + 1]!, png.pixels[i + 2]!];
      // The first series colour, #1f77b4.
      if (Math.abs(r - 0x1f) < 12 && Math.abs(g - 0x77) < 12 && Math.abs(b - 0xb4) < 12) seriesPixels++;
      if (r < 60 && g < 60 && b < 60) darkPixels++;
    }
    expect(seriesPixels).toBeGreaterThan(500);
    // Titles, labels and tick numbers: text needs a font, which resvg found.
    expect(darkPixels).toBeGreaterThan(5_000);
  });
});
