// First start on an empty database: generate and load a sample catalogue so
// the API has something to serve. Later starts find products and skip this.
import path from 'node:path';
import { generateCatalogue, isCurrent, readManifest } from './generate/generate.ts';
import { loadCatalogue } from './load/load.ts';
import type { Config } from '../config.ts';
import { queryOnce } from '../db/pool/query-once.ts';

export async function catalogueIsEmpty(databaseUrl: string): Promise<boolean> {
  return (await queryOnce(databaseUrl, 'SELECT 1 FROM products LIMIT 1')).length === 0;
}

export async function loadSampleCatalogue(config: Config, databaseUrl: string, log: (message: string) => void): Promise<void> {
  const dir = path.join(config.dataDir, 'sample', `scale-${config.sampleScale}`);
  const started = performance.now();
  const manifest = readManifest(dir);
  if (!isCurrent(manifest, { scale: config.sampleScale })) {
    log(`generating a sample catalogue (scale ${config.sampleScale}) in ${dir}`);
    await generateCatalogue({ scale: config.sampleScale, seed: 1, out: dir, quiet: true });
  }
  log('loading the sample catalogue');
  const summary = await loadCatalogue({ databaseUrl, dir, replace: false, log });
  const counts = Object.entries(summary.counts).map(([table, n]) => `${n.toLocaleString('en-US')} ${table}`).join(', ');
  log(`sample catalogue loaded in ${((performance.now() - started) / 1000).toFixed(1)} s: ${counts}`);
}
