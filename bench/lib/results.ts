// The files a benchmark run leaves in .data/bench/results/<time>/:
// results.json (where the figures come from, settings, every run's row and,
// with --runs, each figure's median, with their ratios to the baseline),
// table.md, chart.svg and chart.png; raw/ holds each generator run's own
// output. With --save <name>, results.json is also docs/performance/<name>.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { latencyChart } from './chart.ts';
import type { BenchPlan } from './plan.ts';
import { renderPng } from './png.ts';
import { type Provenance, publish } from './provenance.ts';
import { type BenchRow, RATIO_NOTE, markdownTable, medianRows, ratios, sortRows } from './report.ts';

export interface RunInfo {
  plan: BenchPlan;
  startedAt: Date;
  products: number;
  /** One line saying what was measured how (printed above the table, subtitle of the chart). */
  summary: string;
  provenance: Provenance;
}

/** The rows a table shows: each run's, or with --runs their medians. */
export function shownRows(info: RunInfo, rows: readonly BenchRow[]): BenchRow[] {
  return sortRows(info.plan.runs > 1 ? medianRows(rows) : rows, info.plan.scenarios);
}

export function newResultsDir(dataDir: string, startedAt: Date): string {
  const dir = path.join(dataDir, 'bench', 'results', startedAt.toISOString().replace(/[:.]/g, '-'));
  fs.mkdirSync(path.join(dir, 'raw'), { recursive: true });
  return dir;
}

/** results.json and table.md; rewritten after every run, so an interrupted benchmark keeps what it measured. */
export function saveResults(dir: string, info: RunInfo, rows: readonly BenchRow[], done = false): void {
  const sorted = sortRows(rows, info.plan.scenarios);
  const shown = shownRows(info, rows);
  const document = {
    provenance: info.provenance,
    startedAt: info.startedAt.toISOString(),
    savedAt: new Date().toISOString(),
    summary: info.summary,
    machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    plan: info.plan,
    products: info.products,
    // NaN (a percentile the generator did not give) is written as null.
    rows: sorted.map((row) => ({ ...row, vsBaseline: ratios(row, sorted) })),
    ...(info.plan.runs > 1 ? { medians: shown.map((row) => ({ ...row, vsBaseline: ratios(row, shown) })) } : {}),
  };
  fs.writeFileSync(path.join(dir, 'results.json'), `${JSON.stringify(document, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'table.md'), `${info.summary}\n\n${markdownTable(shown)}\n\n${RATIO_NOTE}.\n`);
  if (done && info.plan.save) console.log(`results published as ${path.relative(process.cwd(), publish(info.plan.save, document))}`);
}

/** chart.svg and chart.png. */
export function saveChart(dir: string, info: RunInfo, rows: readonly BenchRow[]): void {
  const svg = latencyChart(rows, { title: 'Latency against achieved request rate', subtitle: info.summary, scenarios: info.plan.scenarios });
  fs.writeFileSync(path.join(dir, 'chart.svg'), svg);
  fs.writeFileSync(path.join(dir, 'chart.png'), renderPng(svg).data);
}
