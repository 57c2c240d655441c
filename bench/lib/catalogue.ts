// The catalogue a benchmark runs on: `<database>_bench` holding the generated
// catalogue of the requested scale, reused when it is already there.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { generateCatalogue, isCurrent, readManifest } from '../../src/etl/generate/generate.ts';
import { ensureBenchDatabase } from './bench-database.ts';
import { queryOnce } from '../../src/db/pool/query-once.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface BenchCatalogue {
  /** URL of the bench database. */
  url: string;
  products: number;
  /** Highest product id (ids are dense from 1). */
  maxId: number;
}

/** The tables every product read touches, and their keys. */
const HOT_RELATIONS = ['products', 'products_pkey', 'product_style_documents', 'product_style_documents_pkey', 'product_detail_documents', 'product_detail_documents_pkey'];

/**
 * Reads the hot tables into shared_buffers (pg_prewarm, shipped with
 * Postgres), so a run measures the steady state of a server that has been
 * serving, not the first minutes after a restart. Skipped, with a note, where
 * the extension is not available.
 */
async function prewarm(url: string): Promise<void> {
  try {
    await queryOnce(url, 'CREATE EXTENSION IF NOT EXISTS pg_prewarm');
    const [row] = await queryOnce<{ blocks: string }>(url, `SELECT sum(pg_prewarm(name))::text AS blocks FROM unnest($1::text[]) AS name`, [HOT_RELATIONS]);
    console.log(`prewarmed ${HOT_RELATIONS.join(', ')}: ${Math.round(Number(row?.blocks ?? 0) * 8 / 1024)} MB`);
  } catch (error) {
    console.log(`not prewarmed (${(error as Error).message})`);
  }
}

/** Makes sure the bench database beside `databaseUrl` (`<database><suffix>`) holds the catalogue at `scale`, generating and loading it if not. */
export async function ensureBenchCatalogue(databaseUrl: string, scale: number, dataDir: string, suffix = '_bench'): Promise<BenchCatalogue> {
  const { url, name } = await ensureBenchDatabase(databaseUrl, suffix);
  const dir = path.join(dataDir, 'bench', `scale-${scale}`);
  let manifest = readManifest(dir);
  const loaded = await queryOnce<{ n: string }>(url, 'SELECT count(*) AS n FROM products').catch(() => [{ n: '0' }]);
  if (isCurrent(manifest, { scale, seed: 1 }) && Number(loaded[0]?.n) === manifest.expected.products) {
    console.log(`using the scale-${scale} catalogue already in ${name} (${manifest.expected.products.toLocaleString('en-US')} products)`);
  } else {
    if (!isCurrent(manifest, { scale, seed: 1 })) {
      console.log(`generating scale ${scale} into ${dir}`);
      manifest = await generateCatalogue({ scale, seed: 1, out: dir });
    }
    console.log(`loading it into ${name}`);
    const result = spawnSync(process.execPath, ['--max-old-space-size=128', path.join(ROOT, 'src/etl/load/cli.ts'), '--dir', dir, '--replace'], {
      stdio: 'inherit', env: { ...process.env, DATABASE_URL: url },
    });
    if (result.status !== 0) throw new Error('loading the bench catalogue failed');
  }
  await prewarm(url);
  const [row] = await queryOnce<{ max: number }>(url, 'SELECT max(id) AS max FROM products');
  return { url, products: manifest.expected.products, maxId: row?.max ?? manifest.expected.products };
}

/** A catalogue already loaded at `url` (--database-url), measured as it is: nothing generated or loaded, only prewarmed. */
export async function loadedCatalogue(url: string): Promise<BenchCatalogue> {
  const [row] = await queryOnce<{ n: string; max: number | null }>(url, 'SELECT count(*) AS n, max(id) AS max FROM products');
  const products = Number(row?.n ?? 0);
  if (products === 0 || row?.max == null) throw new Error(`the catalogue at --database-url has no products: load one first (npm run data:load)`);
  console.log(`using the catalogue at --database-url as it is (${products.toLocaleString('en-US')} products, ids up to ${row.max.toLocaleString('en-US')})`);
  await prewarm(url);
  return { url, products, maxId: row.max };
}
