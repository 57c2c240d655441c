// Progress of long commands (src/etl/progress.ts) and of every phase of a
// load: bars on a terminal, a plain line per task under way every few
// seconds in a log (whether or not it moved), each with done, total and a
// rate; and a load that fails mid-way through its builds leaves the previous
// catalogue served.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalogue } from '../../src/etl/generate/generate.ts';
import { loadCatalogue } from '../../src/etl/load/load.ts';
import { formatSummary } from '../../src/etl/load/summary.ts';
import { Progress } from '../../src/etl/progress.ts';
import { queryOnce } from '../../src/db/pool/query-once.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

/** A stream that keeps what is written, as a terminal (`isTTY`) or not. */
function capture(tty: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) { chunks.push(String(chunk)); done(); } }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { isTTY: tty, columns: 160, rows: 40 });
  return { stream, text: () => chunks.join('') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Progress', () => {
  it('in a log: a line per task under way at every interval, moved or not, with done of total and a rate; one when done', async () => {
    const out = capture(false);
    const progress = new Progress({ stream: out.stream, intervalMs: 40 });
    try {
      const task = progress.task('skus.csv', 2 * 1024 * 1024, 'bytes');
      task.update(1024 * 1024, 12_345);
      await sleep(130); // no update meanwhile: a long statement
      const lines = out.text().split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThanOrEqual(2);
      for (const line of lines) expect(line).toMatch(/^skus\.csv: 50% 1\.0 MB of 2\.0 MB \([\d.]+ MB\/s\), 12\.3k rows \([\d.]+[kM]? rows\/s\)$/);
      task.finish();
      expect(out.text().split('\n').filter(Boolean).at(-1)).toMatch(/^skus\.csv: done, 2\.0 MB in [\d.]+ s \([\d.]+ MB\/s\)$/);
      // Finished tasks write no more lines.
      const written = out.text().length;
      await sleep(100);
      expect(out.text().length).toBe(written);
    } finally {
      progress.stop();
    }
  });

  it('the interval is never longer than 10 s', async () => {
    const out = capture(false);
    const progress = new Progress({ stream: out.stream, intervalMs: 60_000 });
    try {
      progress.task('x', 10);
      // The timer is what matters; asserted through its period.
      expect((progress as unknown as { intervalMs: number }).intervalMs).toBe(10_000);
    } finally {
      progress.stop();
    }
  });

  it('on a terminal: a redrawn bar per task with done of total and a rate, the finished ones printed above', async () => {
    const out = capture(true);
    const progress = new Progress({ stream: out.stream });
    try {
      const a = progress.task('browse rows', 1_000_000, 'products');
      const b = progress.task('indexes', 12, 'builds');
      a.update(250_000);
      b.update(3);
      await sleep(450);
      const text = out.text();
      expect(text).toMatch(/browse rows \[[^\]]+\]\s+25% 250\.0k products of 1\.00M products \([\d.]+[kM]? products\/s\)/);
      expect(text).toMatch(/indexes \[[^\]]+\]\s+25% 3 builds of 12 builds/);
      expect(text).toContain('\x1b['); // redrawn in place
      b.finish();
      a.finish();
      expect(out.text()).toMatch(/indexes: done, 12 builds in [\d.]+ s/);
    } finally {
      progress.stop();
    }
  });
});

describe('a load', () => {
  let db: TestDatabase;
  let root: string;
  let dirA: string;
  let dirB: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-progress-'));
    dirA = path.join(root, 'a');
    dirB = path.join(root, 'b');
    await generateCatalogue({ scale: 0.003, seed: 11, out: dirA, quiet: true });
    await generateCatalogue({ scale: 0.002, seed: 12, out: dirB, quiet: true });
  });
  afterAll(async () => {
    await db?.drop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('shows every phase with done of total and a rate, in a log', async () => {
    const out = capture(false);
    await loadCatalogue({ databaseUrl: db.url, dir: dirA, replace: true, progress: { stream: out.stream, intervalMs: 50 } });
    const lines = out.text().split('\n').filter(Boolean);
    const phases = [
      'product.csv', 'features.csv', 'styles.csv', 'photos.csv', 'skus.csv', 'related.csv', 'primary keys', 'indexes', 'foreign keys',
      'analyze', 'style documents', 'detail documents', 'browse rows', 'browse aggregates', 'read model indexes', 'read models\' foreign keys and triggers',
    ];
    for (const phase of phases) {
      const ofPhase = lines.filter((line) => line.startsWith(`${phase}: `));
      expect(ofPhase.length, phase).toBeGreaterThan(0);
      // Done (the files say what they loaded), and whatever came before it: done of total and a rate.
      expect(ofPhase.at(-1), phase).toMatch(/: (done, .* in [\d.]+ s \(.*\/s\)|[\d,]+ loaded, [\d,]+ rejected in [\d.]+ s)$/);
      for (const line of ofPhase.slice(0, -1)) expect(line, phase).toMatch(/: \d+% .* of .* \([\d.]+[kM]? .*\/s\)/);
    }
    // The read models count products.
    expect(lines.find((line) => line.startsWith('browse rows: done'))).toMatch(/^browse rows: done, 3000 products in/);
    // Periodic lines came (the load takes longer than the interval).
    expect(lines.filter((line) => /: \d+% /.test(line)).length).toBeGreaterThan(0);
    expect(lines).toContain('swapping the new catalogue in');
  });

  it('counts its CPU by phase (loader and database backends) and keeps autovacuum off its staged tables until the swap', async () => {
    let staged: unknown[] = [];
    const summary = await loadCatalogue({
      databaseUrl: db.url, dir: dirA, replace: true,
      beforeSwap: async (client) => {
        staged = (await client.query(`SELECT c.relname, c.reloptions FROM pg_class c WHERE c.relnamespace = 'catalog_staging'::regnamespace AND c.relkind = 'r'`)).rows;
      },
    });
    expect(staged.length).toBeGreaterThanOrEqual(15);
    for (const table of staged as { relname: string; reloptions: string[] }[]) {
      expect(table.reloptions, table.relname).toEqual(['autovacuum_enabled=false']); // the toast table holds its own
    }
    // Live again: the tables are autovacuum's from the swap on.
    expect(await queryOnce(db.url, `SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' AND reloptions IS NOT NULL`)).toEqual([]);
    // The test server runs on this machine: its backends' CPU is read too.
    expect(summary.cpu.total.loader).toBeGreaterThan(0);
    expect(summary.cpu.total.database).toBeGreaterThan(0);
    expect(summary.cpu.files.database! + summary.cpu.keys.database! + summary.cpu.build.database! + summary.cpu.finish.database! + summary.cpu.swap.database!)
      .toBeCloseTo(summary.cpu.total.database!, 5);
    expect(Object.keys(summary.buildCpu)).toEqual(expect.arrayContaining(['browse rows', 'style documents', 'read model indexes']));
    expect(summary.buildCpu['browse rows']).toBeGreaterThan(0);
    // Linux: the whole host's busy CPU, and the cores the load wanted (sampled), at most the host's cores for the load's wall time.
    expect(summary.cpu.total.host).toBeGreaterThan(0);
    expect(summary.cpu.build.wanted).toBeGreaterThan(0);
    expect(summary.cpu.total.wanted!).toBeLessThanOrEqual(os.availableParallelism() * summary.seconds.total + 0.5);
    expect(formatSummary(summary)).toMatch(/^cores, busy with the load\/wanted by it\/busy on the host: files [\d.]+\/[\d.]+\/[\d.]+, keys .*, builds [\d.]+\/[\d.]+\/[\d.]+, /m);
    expect(Object.values(summary.buildCpu).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(summary.cpu.build.database! + 0.05);
  });

  it('that fails mid-way through its builds (a connection terminated) leaves the previous catalogue served', async () => {
    const digest = async () => (await queryOnce<{ d: string }>(db.url, `
      SELECT (SELECT count(*) FROM products) || ':' || (SELECT md5(string_agg(id || name || description, ',' ORDER BY id)) FROM products)
        || ':' || (SELECT count(*) FROM product_browse) || ':' || (SELECT count(*) FROM product_style_documents) AS d`))[0]!.d;
    const before = await digest();
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    let killed: number | undefined;
    let during: string | undefined;
    let watcher: Promise<void> | undefined;
    try {
      const load = loadCatalogue({
        databaseUrl: db.url, dir: dirB, replace: true,
        log: (line) => {
          if (!line.startsWith('building')) return;
          // The builds have begun: end a backend building browse rows (a statement of its own, long enough to catch).
          watcher ??= (async () => {
            for (let attempt = 0; attempt < 2000 && killed === undefined; attempt++) {
              const { rows } = await admin.query<{ pid: number }>(`
                SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
                  AND query LIKE '%refresh_product_browse%' AND query NOT LIKE '%pg_stat_activity%' AND pg_terminate_backend(pid)`);
              if (rows[0]) {
                killed = rows[0].pid;
                during = await digest();
              } else {
                await sleep(2);
              }
            }
          })();
        },
      });
      await expect(load).rejects.toThrow(/terminat/);
      // The read during the load may still be on its way when the load gives up.
      await watcher;
    } finally {
      await admin.end();
    }
    expect(killed).toBeDefined();
    expect(during).toBe(before);
    expect(await digest()).toBe(before);
    expect(await queryOnce(db.url, `SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'catalog_staging'`)).toEqual([{ n: 0 }]);
    expect(await queryOnce(db.url, 'SELECT status FROM load_runs ORDER BY id DESC LIMIT 1')).toEqual([{ status: 'failed' }]);
    // And the next load goes through.
    const summary = await loadCatalogue({ databaseUrl: db.url, dir: dirB, replace: true });
    expect((await queryOnce<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM products'))[0]!.n).toBe(summary.counts.products);
  });
});
