// The loader end to end on generated files: counts match the manifest,
// --replace is idempotent, and a failed load never damages the catalogue.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalogue, type Manifest } from '../../src/etl/generate/generate.ts';
import { LoadError, loadCatalogue } from '../../src/etl/load/load.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { findSchemaDrift } from '../support/schema-drift.ts';
import { queryOnce } from '../../src/db/pool/query-once.ts';

// Rows as plain records (this file destructures counts and statuses).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const query = (url: string, sql: string) => queryOnce<any>(url, sql);

const TABLES = ['products', 'features', 'styles', 'photos', 'skus', 'related'] as const;

/** A digest of every catalogue row except the load timestamps. */
async function fingerprint(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result: Record<string, string> = {};
    for (const table of TABLES) {
      const { rows } = await client.query(
        `SELECT count(*) || ':' || coalesce(md5(string_agg((to_jsonb(t) - 'created_at' - 'updated_at' - 'version')::text, ',' ORDER BY id)), '') AS digest FROM ${table} t`);
      result[table] = rows[0].digest;
    }
    return result;
  } finally {
    await client.end();
  }
}


describe('loading generated catalogues', () => {
  let db: TestDatabase;
  let dirA: string;
  let dirB: string;
  let manifestA: Manifest;
  /** Every file this suite writes, removed after it. */
  let root: string | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-load-'));
    dirA = path.join(root, 'a');
    dirB = path.join(root, 'b');
    manifestA = await generateCatalogue({ scale: 0.005, seed: 3, out: dirA, quiet: true });
    await generateCatalogue({ scale: 0.004, seed: 4, out: dirB, quiet: true });
  });
  afterAll(async () => {
    await db?.drop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('loads exactly the clean counts the manifest expects, table by table', async () => {
    const summary = await loadCatalogue({ databaseUrl: db.url, dir: dirA, replace: false });
    expect(summary.counts).toEqual(manifestA.expected);
    const [counts] = await query(db.url, `SELECT ${TABLES.map((t) => `(SELECT count(*)::int FROM ${t}) AS ${t}`).join(', ')}`);
    expect(counts).toEqual(manifestA.expected);
  });

  it('refuses to load over a non-empty catalogue without --replace, changing nothing', async () => {
    const before = await fingerprint(db.url);
    await expect(loadCatalogue({ databaseUrl: db.url, dir: dirB, replace: false })).rejects.toThrow(/already has .* products; pass --replace/);
    expect(await fingerprint(db.url)).toEqual(before);
  });

  it('gives the same database when the same files are loaded twice with --replace', async () => {
    const first = await fingerprint(db.url);
    const versions = async () => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        return (await client.query<{ min: string; max: string }>('SELECT min(version)::text AS min, max(version)::text AS max FROM products')).rows[0]!;
      } finally {
        await client.end();
      }
    };
    const before = await versions();
    await loadCatalogue({ databaseUrl: db.url, dir: dirA, replace: true });
    expect(await fingerprint(db.url)).toEqual(first);
    // Only the versions (the ETags) differ: drawn anew, never one of the replaced catalogue's.
    expect(BigInt((await versions()).min)).toBeGreaterThan(BigInt(before.max));
    await loadCatalogue({ databaseUrl: db.url, dir: dirA, replace: true });
    expect(await fingerprint(db.url)).toEqual(first);
  });

  it('leaves the schema exactly as schema.prisma declares after swapping tables in', async () => {
    expect(await findSchemaDrift(db.url)).toEqual([]);
  });

  it('keeps the previous catalogue when a file turns out to be truncated half-way through the load', async () => {
    const before = await fingerprint(db.url);
    const broken = fs.mkdtempSync(path.join(root!, 'broken-'));
    for (const file of fs.readdirSync(dirB)) fs.copyFileSync(path.join(dirB, file), path.join(broken, file));
    // Cut skus.csv (loaded in the last phase, after products and styles) inside its last row.
    const skus = fs.readFileSync(path.join(broken, 'skus.csv'), 'utf8');
    fs.writeFileSync(path.join(broken, 'skus.csv'), skus.slice(0, skus.lastIndexOf(',"') + 3));
    await expect(loadCatalogue({ databaseUrl: db.url, dir: broken, replace: true })).rejects.toThrow(/skus\.csv line \d+: .*truncated/);
    expect(await fingerprint(db.url)).toEqual(before);
    expect(await query(db.url, `SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'catalog_staging'`)).toEqual([{ n: 0 }]);
    const [run] = await query(db.url, 'SELECT status FROM load_runs ORDER BY id DESC LIMIT 1');
    expect(run.status).toBe('failed');
  });

  it('keeps the previous catalogue when the load dies just before the swap', async () => {
    const before = await fingerprint(db.url);
    await expect(loadCatalogue({
      databaseUrl: db.url, dir: dirB, replace: true,
      beforeSwap: async () => { throw new Error('simulated crash'); },
    })).rejects.toThrow('simulated crash');
    expect(await fingerprint(db.url)).toEqual(before);
  });

  it('lets only one load run at a time, without disturbing the running one', async () => {
    let secondAttempt: Promise<unknown> | undefined;
    const first = loadCatalogue({
      databaseUrl: db.url, dir: dirB, replace: true,
      beforeSwap: async () => {
        secondAttempt = loadCatalogue({ databaseUrl: db.url, dir: dirA, replace: true }).catch((error: unknown) => error);
        await secondAttempt;
      },
    });
    const summary = await first;
    const error = await secondAttempt;
    expect(error).toBeInstanceOf(LoadError);
    expect((error as Error).message).toMatch(/another data:load is running/);
    const [{ n }] = await query(db.url, 'SELECT count(*)::int AS n FROM products');
    expect(n).toBe(summary.counts.products);
  });

  it('swaps in after a write that deadlocks with the swap (tried again), and the write completes', async () => {
    // A writer that holds a child table (a sku inserted) and then needs a
    // parent (its foreign-key check's share lock), while the swap holds the
    // parents and waits for the children: Postgres aborts the swap.
    const writer = new pg.Client({ connectionString: db.url });
    await writer.connect();
    let written: Promise<unknown> | undefined;
    const lines: string[] = [];
    try {
      const summary = await loadCatalogue({
        databaseUrl: db.url, dir: dirA, replace: true, log: (line) => lines.push(line),
        beforeSwap: async () => {
          await writer.query('BEGIN');
          await writer.query('LOCK TABLE public.skus IN ROW EXCLUSIVE MODE');
          // Once the swap waits for skus, ask for products, which it holds.
          written = new Promise((resolve) => setTimeout(resolve, 300))
            .then(() => writer.query('SELECT 1 FROM public.products LIMIT 1 FOR KEY SHARE'))
            .then(() => writer.query('COMMIT'));
        },
      });
      await written;
      expect(lines.some((line) => /deadlock/.test(line))).toBe(true);
      const [{ n }] = await query(db.url, 'SELECT count(*)::int AS n FROM products');
      expect(n).toBe(summary.counts.products);
      const [run] = await query(db.url, `SELECT status FROM load_runs WHERE id = ${summary.runId}`);
      expect(run.status).toBe('succeeded');
    } finally {
      await writer.end();
    }
  });

  it('serves reads from the old catalogue while a load is in progress', async () => {
    const [{ n: before }] = await query(db.url, 'SELECT count(*)::int AS n FROM products');
    let during: number | undefined;
    await loadCatalogue({
      databaseUrl: db.url, dir: dirA, replace: true,
      beforeSwap: async () => {
        [{ n: during }] = await query(db.url, 'SELECT count(*)::int AS n FROM products');
      },
    });
    expect(during).toBe(before);
    const [{ n: after }] = await query(db.url, 'SELECT count(*)::int AS n FROM products');
    expect(after).toBe(manifestA.expected.products);
  });

  it('loads the same rows and rejects the same lines however the files are cut up and spread over threads and connections', async () => {
    const rejects = async (runId: number) => (await query(db.url,
      `SELECT md5(string_agg(file || ':' || line || ':' || reason || ':' || raw, E'\n' ORDER BY file, line)) AS digest, count(*)::int AS n FROM load_rejects WHERE run_id = ${runId}`))[0];
    // One chunk per file on one thread and one connection: the order a sequential reader sees.
    const whole = await loadCatalogue({ databaseUrl: db.url, dir: dirA, replace: true, chunkBytes: 2 ** 30, parseThreads: 1, copyStreams: 1 });
    const sequential = { data: await fingerprint(db.url), rejects: await rejects(whole.runId) };
    // Chunks of 16 KB (hundreds per file) on three threads and three connections.
    const cut = await loadCatalogue({ databaseUrl: db.url, dir: dirA, replace: true, chunkBytes: 16 * 1024, parseThreads: 3, copyStreams: 3 });
    expect(cut.files.map((f) => ({ ...f, seconds: 0 }))).toEqual(whole.files.map((f) => ({ ...f, seconds: 0 })));
    expect({ data: await fingerprint(db.url), rejects: await rejects(cut.runId) }).toEqual(sequential);
    expect(sequential.rejects.n).toBe(Object.values(manifestA.files).reduce((n, f) => n + f.rows - f.expectedLoaded, 0));
  });

  it('rejects a duplicate id in a later chunk than its first row, as the later line', async () => {
    const dir = fs.mkdtempSync(path.join(root!, 'duplicates-'));
    for (const file of fs.readdirSync(dirB)) fs.copyFileSync(path.join(dirB, file), path.join(dir, file));
    const products = fs.readFileSync(path.join(dir, 'product.csv'), 'utf8').split('\n');
    // The second product again at the very end: chunks of 4 KB put it far from the first.
    const duplicate = products[2]!.replace(/^2,/, '2,');
    fs.writeFileSync(path.join(dir, 'product.csv'), `${products.filter((l) => l !== '').join('\n')}\n${duplicate}\n`);
    const summary = await loadCatalogue({ databaseUrl: db.url, dir, replace: true, chunkBytes: 4096 });
    const lines = products.filter((l) => l !== '').length + 1;
    expect(await query(db.url, `SELECT line::int, reason, raw FROM load_rejects WHERE run_id = ${summary.runId} AND file = 'product.csv'`))
      .toEqual([{ line: lines, reason: 'duplicate id 2', raw: duplicate }]);
    const [first] = await query(db.url, 'SELECT name FROM products WHERE id = 2');
    expect(duplicate).toContain(`"${first.name}"`);
  });

  it('builds the style and detail documents exactly as the triggers\' functions do, byte for byte', async () => {
    await loadCatalogue({ databaseUrl: db.url, dir: dirA, replace: true });
    const documents = async () => ({
      styles: (await query(db.url,
        `SELECT count(*)::int AS n, md5(string_agg(product_id || ':' || styles::text || ':' || coalesce(default_style::text, '-'), E'\n' ORDER BY product_id)) AS digest FROM product_style_documents`))[0],
      details: (await query(db.url,
        `SELECT count(*)::int AS n, md5(string_agg(product_id || ':' || features::text || ':' || related_ids::text, E'\n' ORDER BY product_id)) AS digest FROM product_detail_documents`))[0],
    });
    const loaded = await documents();
    expect(loaded.styles.n).toBeGreaterThan(1000);
    expect(loaded.details.n).toBeGreaterThan(1000);
    await query(db.url, 'SELECT refresh_product_style_documents(ARRAY(SELECT id FROM products))');
    await query(db.url, 'SELECT refresh_product_detail_documents(ARRAY(SELECT id FROM products))');
    expect(await documents()).toEqual(loaded);
  });

  it('escapes and formats the style documents\' values as the triggers\' function does: quotes, backslashes, control characters, unicode, null and zero sale prices, empty arrays', async () => {
    const dir = fs.mkdtempSync(path.join(root!, 'escapes-'));
    for (const file of fs.readdirSync(dirB)) fs.copyFileSync(path.join(dirB, file), path.join(dir, file));
    const nextId = (file: string) => 1 + Math.max(...fs.readFileSync(path.join(dir, file), 'utf8').split('\n').slice(1)
      .map((line) => Number.parseInt(line, 10)).filter(Number.isFinite));
    const append = (file: string, rows: (string | number)[][]) => {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      const quoted = rows.map((row) => row.map((v) => (typeof v === 'number' ? String(v) : `"${v.replaceAll('"', '""')}"`)).join(','));
      fs.writeFileSync(path.join(dir, file), `${text}${text.endsWith('\n') ? '' : '\n'}${quoted.join('\n')}\n`);
    };
    // A line is a row, so no newline; every other character JSON escapes (or must not) is here.
    const name = 'Quote " backslash \\ tab \t cr \r bell \x07 unit \x1f del \x7f é 漢字 😀 \u2028 </script> {"a" : [1]}';
    const size = 'X"L \\ \t \r \x01 ü 😀';
    const url = 'https://example.com/a\\b\x01\x08\x1f\x7fé😀?q=<&>\'\\u0041';
    const [product, style, photo, sku] = [nextId('product.csv'), nextId('styles.csv'), nextId('photos.csv'), nextId('skus.csv')];
    append('product.csv', [[product, 'Escapes', 'Slogan', 'Description', 'Pants', 40], [product + 1, 'No default style', '', '', 'Pants', 40]]);
    append('styles.csv', [
      [style, product, name, 'null', '12.5', 0],
      [style + 1, product, 'Second, "the default"', '0.1', '99999999.99', 1],
      [style + 2, product, 'Third, a default too', '', '2', 1], // no photos, no skus
      [style + 3, product + 1, 'Tab\there', '0', '3', 0],
      [style + 4, product + 1, 'Plain', '7', '8', 0],
    ]);
    // Out of id order in the file: the documents list them by id.
    append('photos.csv', [[photo + 1, style, url, url.replace('a\\b', 'thumb')], [photo, style, 'https://example.com/plain', 'https://example.com/plain-thumb'], [photo + 2, style + 3, url, url]]);
    append('skus.csv', [[sku + 1, style, size, 0], [sku, style, 'One Size', 7], [sku + 2, style + 1, '"XS"', 3], [sku + 3, style + 4, '\u2028 😀', 999999999]]);
    await loadCatalogue({ databaseUrl: db.url, dir, replace: true });

    const rows = async () => (await query(db.url,
      `SELECT product_id, styles::text AS styles, default_style::text AS default_style FROM product_style_documents WHERE product_id IN (${product}, ${product + 1}) ORDER BY product_id`));
    const digest = async () => (await query(db.url,
      `SELECT count(*)::int AS n, md5(string_agg(product_id || ':' || styles::text || ':' || coalesce(default_style::text, '-'), E'\n' ORDER BY product_id)) AS digest FROM product_style_documents`))[0];
    const loaded = await rows();
    const loadedDigest = await digest();
    // The values came through (so the comparison below is about their escaping).
    interface Style { id: number; name: string; salePrice: string | null; photos: { url: string }[]; skus: unknown[] }
    const parse = (row: { styles: string; default_style: string }) => ({ styles: JSON.parse(row.styles) as Style[], defaultStyle: JSON.parse(row.default_style) as Style });
    expect(loaded).toHaveLength(2);
    const first = parse(loaded[0]);
    const second = parse(loaded[1]);
    expect(first.styles.map((s) => s.id)).toEqual([style, style + 1, style + 2]);
    expect(first.styles[0]).toMatchObject({ name, salePrice: null, originalPrice: '12.50', isDefault: false });
    expect(first.styles[0]!.photos.map((p) => p.url)).toEqual(['https://example.com/plain', url]);
    expect(first.styles[0]!.skus).toEqual([{ id: sku, size: 'One Size', quantity: 7 }, { id: sku + 1, size, quantity: 0 }]);
    expect(first.styles[1]).toMatchObject({ salePrice: '0.10', originalPrice: '99999999.99', skus: [{ id: sku + 2, size: '"XS"', quantity: 3 }] });
    expect(first.styles[2]).toMatchObject({ salePrice: null, photos: [], skus: [] });
    expect(first.defaultStyle.id).toBe(style + 1);
    expect(second.styles.map((s) => [s.id, s.salePrice])).toEqual([[style + 3, null], [style + 4, '7.00']]);
    expect(second.styles[1]!.skus).toEqual([{ id: sku + 3, size: '\u2028 😀', quantity: 999999999 }]);
    expect(second.defaultStyle.id).toBe(style + 3);

    await query(db.url, 'SELECT refresh_product_style_documents(ARRAY(SELECT id FROM products))');
    expect(await rows()).toEqual(loaded);
    expect(await digest()).toEqual(loadedDigest);
  });

  it('builds the browse read model as the triggers\' functions do, and keeps it in sync after the swap', async () => {
    await loadCatalogue({ databaseUrl: db.url, dir: dirA, replace: true });
    const digest = (sql: string) => `SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, E'\n' ORDER BY t::text), '')) AS digest FROM (${sql}) t`;
    const readModel = async () => ({
      browse: (await query(db.url, digest('SELECT * FROM product_browse')))[0],
      facets: (await query(db.url, digest('SELECT * FROM browse_facet_cells WHERE products <> 0')))[0],
      sizes: (await query(db.url, digest('SELECT * FROM browse_size_cells WHERE products <> 0')))[0],
      sizeSets: (await query(db.url, digest('SELECT * FROM browse_size_set_cells WHERE products <> 0')))[0],
      sizePairs: (await query(db.url, digest('SELECT * FROM browse_size_pair_cells WHERE products <> 0')))[0],
      lexemes: (await query(db.url, digest('SELECT * FROM search_lexemes')))[0],
    });
    const loaded = await readModel();
    // Laid out in search order (the loader builds the rows stretch by stretch of it, each in
    // that order): a row's place in that order and the table page it is on go together (a
    // small row may fill the space a larger one left on an earlier page). In id order, as
    // before, the correlation was about 0.1 (popularity has nothing to do with the id).
    const [layout] = await query(db.url, `SELECT corr(place, (ctid::text::point)[0]) AS correlation
      FROM (SELECT ctid, row_number() OVER (ORDER BY search_order) AS place FROM product_browse) t`);
    expect(Number(layout.correlation)).toBeGreaterThan(0.98);
    const [products] = await query(db.url, 'SELECT count(*)::int AS n FROM products');
    expect(loaded.browse.n).toBe(products.n);
    expect(loaded.facets.n).toBeGreaterThan(0);
    expect(loaded.sizeSets.n).toBeGreaterThan(0);
    expect(loaded.lexemes.n).toBeGreaterThan(100);
    // The vectors are each product's own texts' (computed once per distinct
    // name and category by the function): the same as the plain per-product definition
    // (the name's vector with its word pairs, the proximity rule's).
    const [mismatched] = await query(db.url, `SELECT count(*)::int AS n FROM product_browse b JOIN products p ON p.id = b.product_id
      CROSS JOIN LATERAL (SELECT setweight(to_tsvector('english', p.name), 'A') || (SELECT pairs FROM search_name_words(to_tsvector('english', p.name)) AS w(words), search_word_pairs(w.words) AS pairs) AS a, setweight(to_tsvector('english', p.category), 'B') AS b,
        setweight(to_tsvector('english', p.slogan || ' ' || coalesce((SELECT string_agg(f.value, ' ' ORDER BY f.id) FROM features f WHERE f.product_id = p.id), '')), 'C') AS c,
        setweight(to_tsvector('english', p.description), 'D') AS d) v
      WHERE (b.match_a, b.match_ab, b.match_abc, b.document) IS DISTINCT FROM (v.a, v.a || v.b, v.a || v.b || v.c, v.a || v.b || v.c || v.d)`);
    expect(mismatched.n).toBe(0);
    // Rebuilt from scratch by the functions the migration uses: the same rows.
    await query(db.url, 'DELETE FROM product_browse');
    await query(db.url, 'SELECT refresh_product_browse(ARRAY(SELECT id FROM products))');
    await query(db.url, 'SELECT rebuild_browse_aggregates()');
    expect(await readModel()).toEqual(loaded);
    // The triggers came with the swapped-in tables: a renamed product moves its browse row.
    const [product] = await query(db.url, `UPDATE products SET name = 'Zyzzyva Loader Check' WHERE id = (SELECT min(id) FROM products) RETURNING id`);
    const [row] = await query(db.url, `SELECT name FROM product_browse WHERE product_id = ${Number(product.id)}`);
    expect(row.name).toBe('Zyzzyva Loader Check');
  });
});
