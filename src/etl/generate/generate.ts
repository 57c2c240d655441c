// Generates a legacy-format catalogue: six CSV files and a manifest, using one
// worker thread per core. Files are written under a temporary name and renamed
// only when complete, and the manifest is written last, so a directory with a
// manifest always holds a complete, consistent set.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Progress } from '../progress.ts';
import type { FileReport } from './files.ts';
import { FILES, type FileName, makePlan, type Plan, QUIRKS } from './plan.ts';

export const MANIFEST = 'manifest.json';
export const FILE_NAMES: Record<FileName, string> = {
  product: 'product.csv', features: 'features.csv', styles: 'styles.csv',
  photos: 'photos.csv', skus: 'skus.csv', related: 'related.csv',
};

/** Clean-row counts a correct loader must end up with, per table. */
export interface Manifest {
  generator: 'catalogue-api';
  scale: number;
  seed: number;
  files: Record<FileName, FileReport>;
  expected: { products: number; features: number; styles: number; photos: number; skus: number; related: number };
  quirkRates: typeof QUIRKS;
}

export class GenerateError extends Error {}

// Biggest first, so the pool finishes at about the same time on two cores.
const ORDER: FileName[] = ['photos', 'skus', 'product', 'related', 'features', 'styles'];

function runWorker(file: FileName, plan: Plan, target: string, onRows: (rows: number) => void): Promise<FileReport> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { workerData: { file, plan, path: target } });
    let report: FileReport | undefined;
    worker.on('message', (message: { type: 'progress'; rows: number } | { type: 'done'; report: FileReport }) => {
      if (message.type === 'progress') onRows(message.rows);
      else report = message.report;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => (report ? resolve(report) : reject(new GenerateError(`generating ${file} failed (worker exit ${code})`))));
  });
}

export async function generateCatalogue(options: { scale: number; seed: number; out: string; quiet?: boolean }): Promise<Manifest> {
  const plan = makePlan(options.scale, options.seed);
  if (plan.rows.product < 10) throw new GenerateError(`--scale ${options.scale} gives fewer than 10 products; use at least 0.00001`);
  try {
    fs.mkdirSync(options.out, { recursive: true });
    fs.accessSync(options.out, fs.constants.W_OK);
  } catch {
    throw new GenerateError(`cannot write to ${options.out}`);
  }
  fs.rmSync(path.join(options.out, MANIFEST), { force: true });
  const progress = new Progress(options.quiet ? undefined : process.stderr);
  const reports = {} as Record<FileName, FileReport>;
  const queue = [...ORDER];
  const poolSize = Math.max(1, Math.min(os.availableParallelism(), queue.length));
  async function drain(): Promise<void> {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const target = path.join(options.out, FILE_NAMES[file]);
      const task = options.quiet ? undefined : progress.task(FILE_NAMES[file], plan.rows[file]);
      const started = Date.now();
      reports[file] = await runWorker(file, plan, `${target}.partial`, (rows) => task?.update(rows));
      fs.renameSync(`${target}.partial`, target);
      task?.finish(`${FILE_NAMES[file]}: ${plan.rows[file].toLocaleString('en-US')} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  }
  await Promise.all(Array.from({ length: poolSize }, drain));
  const manifest: Manifest = {
    generator: 'catalogue-api',
    scale: options.scale,
    seed: options.seed,
    files: Object.fromEntries(FILES.map((f) => [f, reports[f]])) as Record<FileName, FileReport>,
    expected: {
      products: reports.product.expectedLoaded,
      features: reports.features.expectedLoaded,
      styles: reports.styles.expectedLoaded,
      photos: reports.photos.expectedLoaded,
      skus: reports.skus.expectedLoaded,
      related: reports.related.expectedLoaded,
    },
    quirkRates: QUIRKS,
  };
  fs.writeFileSync(path.join(options.out, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export function readManifest(dir: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}
