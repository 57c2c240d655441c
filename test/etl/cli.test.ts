// The data:load and data:generate commands, run for real as child processes:
// every operator mistake ends with a non-zero exit and one clear `error: ...`
// line (never a stack trace), a failed load leaves the database as it was, and
// a good load prints the per-file summary with the counts the manifest promises.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Manifest, generateCatalogue } from '../../src/etl/generate/generate.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { queryOnce as query } from '../../src/db/pool/query-once.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const LOAD = 'src/etl/load/cli.ts';
const GENERATE = 'src/etl/generate/cli.ts';

const FILE_NAMES = ['product.csv', 'features.csv', 'styles.csv', 'photos.csv', 'skus.csv', 'related.csv'] as const;
const TABLE_OF_FILE: Record<(typeof FILE_NAMES)[number], keyof Manifest['expected']> = {
  'product.csv': 'products', 'features.csv': 'features', 'styles.csv': 'styles',
  'photos.csv': 'photos', 'skus.csv': 'skus', 'related.csv': 'related',
};
const MANIFEST_KEY_OF_FILE = {
  'product.csv': 'product', 'features.csv': 'features', 'styles.csv': 'styles',
  'photos.csv': 'photos', 'skus.csv': 'skus', 'related.csv': 'related',
} as const;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [script, ...args], {
      cwd: ROOT,
      env: { ...process.env, CI: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000); // a failure bound (a loaded host)
    child.once('error', (error) => { clearTimeout(timer); reject(error); });
    child.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

/** Non-zero exit, exactly one `error: ...` line, matching `message`, and no stack trace anywhere. */
function expectCleanFailure(result: Result, message: RegExp): string {
  const output = `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
  expect(result.code, output).not.toBe(0);
  expect(result.code, output).not.toBeNull();
  const errorLines = result.stderr.split('\n').filter((l) => l.startsWith('error:'));
  expect(errorLines, output).toHaveLength(1);
  // The error message may continue with a usage line, but is the last thing printed.
  const fromError = result.stderr.slice(result.stderr.indexOf('error:'));
  expect(fromError, output).toMatch(message);
  for (const text of [result.stdout, result.stderr]) {
    expect(text, output).not.toMatch(/^\s+at /m);
    expect(text, output).not.toMatch(/node:internal|^\w*Error\b.*:/m);
  }
  return errorLines[0] as string;
}


async function tableCount(url: string, table: string): Promise<number> {
  const [row] = await query<{ n: string }>(url, `SELECT count(*) AS n FROM ${table}`);
  return Number(row?.n);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-cli-test-'));
const GOOD = path.join(tmp, 'good');
// Big enough that every quirk, including the unterminated quotes, is in the files.
const SCALE = 0.01;
let manifest: Manifest;
const databases: TestDatabase[] = [];

beforeAll(async () => {
  manifest = await generateCatalogue({ scale: SCALE, seed: 11, out: GOOD, quiet: true });
});

afterAll(async () => {
  for (const database of databases) await database.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function database(): Promise<TestDatabase> {
  const created = await createTestDatabase();
  databases.push(created);
  return created;
}

let copies = 0;
/** A private copy of the good set, to break. */
function copyOfGood(): string {
  const dir = path.join(tmp, `copy-${++copies}`);
  fs.cpSync(GOOD, dir, { recursive: true });
  return dir;
}

describe('data:load: operator mistakes', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await database();
    env = { DATABASE_URL: db.url };
  });

  it('missing --dir is a usage error', async () => {
    const line = expectCleanFailure(await run(LOAD, [], env), /--dir is required\nusage: /);
    expect(line).toBe('error: --dir is required');
  });

  it('an unknown option is a usage error', async () => {
    expectCleanFailure(await run(LOAD, ['--dir', GOOD, '--bogus'], env), /bogus[\s\S]*usage: /);
  });

  it('a directory that does not exist', async () => {
    const dir = path.join(tmp, 'no-such-dir');
    const line = expectCleanFailure(await run(LOAD, ['--dir', dir], env), /does not exist/);
    expect(line).toContain(dir);
  });

  it('a path that is a file, not a directory', async () => {
    const file = path.join(GOOD, 'product.csv');
    const line = expectCleanFailure(await run(LOAD, ['--dir', file], env), /is not a directory/);
    expect(line).toContain(file);
  });

  it('a directory missing one of the six files names that file', async () => {
    const dir = copyOfGood();
    fs.rmSync(path.join(dir, 'related.csv'));
    const line = expectCleanFailure(await run(LOAD, ['--dir', dir], env), /missing file/);
    expect(line).toContain('related.csv');
    for (const other of FILE_NAMES.filter((f) => f !== 'related.csv')) expect(line).not.toContain(other);
  });

  it('a directory with none of the files names them all', async () => {
    const dir = path.join(tmp, 'empty-dir');
    fs.mkdirSync(dir);
    const line = expectCleanFailure(await run(LOAD, ['--dir', dir], env), /missing files/);
    for (const file of FILE_NAMES) expect(line).toContain(file);
  });

  it('a wrong header names the file and the expected header', async () => {
    const dir = copyOfGood();
    const file = path.join(dir, 'styles.csv');
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace(/^[^\n]*/, 'id,product_id,name,sale_price,original_price,default_style'));
    const line = expectCleanFailure(await run(LOAD, ['--dir', dir], env), /wrong header/);
    expect(line).toContain('styles.csv');
    expect(line).toContain('"id,productId,name,sale_price,original_price,default_style"');
  });

  it('an empty file names the file', async () => {
    const dir = copyOfGood();
    fs.writeFileSync(path.join(dir, 'features.csv'), '');
    const line = expectCleanFailure(await run(LOAD, ['--dir', dir], env), /features\.csv is empty/);
    expect(line).toContain('id,product_id,feature,value');
  });

  it('a directory where a file should be (photos.csv/) is a clear error naming it', async () => {
    const dir = copyOfGood();
    fs.rmSync(path.join(dir, 'photos.csv'));
    fs.mkdirSync(path.join(dir, 'photos.csv'));
    const line = expectCleanFailure(await run(LOAD, ['--dir', dir], env), /photos\.csv/);
    expect(line).toMatch(/cannot read|not a file|directory/);
  });

  it('a truncated file (last line cut in the middle, no final newline) fails, says so, and loads nothing', async () => {
    const dir = copyOfGood();
    const file = path.join(dir, 'skus.csv');
    const text = fs.readFileSync(file, 'utf8');
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1;
    const lastLine = text.slice(lastStart, -1);
    const cut = text.slice(0, lastStart + Math.floor(lastLine.length / 2));
    expect(cut.endsWith('\n')).toBe(false);
    fs.writeFileSync(file, cut);
    const lineCount = cut.split('\n').length;

    const line = expectCleanFailure(await run(LOAD, ['--dir', dir], env), /truncated/);
    expect(line).toContain('skus.csv');
    expect(line).toContain(`line ${lineCount}`);
    // The earlier files loaded into staging, but nothing reached the live tables.
    for (const table of ['products', 'features', 'styles', 'photos', 'skus', 'related']) {
      expect(await tableCount(db.url, table), table).toBe(0);
    }
    const schemas = await query(db.url, `SELECT 1 FROM pg_namespace WHERE nspname = 'catalog_staging'`);
    expect(schemas).toHaveLength(0);
    const runs = await query<{ status: string }>(db.url, 'SELECT status FROM load_runs ORDER BY id');
    expect(runs.map((r) => r.status)).toEqual(['failed']);
  });
});

describe('data:load: a good load', () => {
  let db: TestDatabase;
  let first: Result;
  beforeAll(async () => {
    db = await database();
    first = await run(LOAD, ['--dir', GOOD], { DATABASE_URL: db.url });
  });

  it('exits 0 and prints the per-file summary table with the manifest counts', () => {
    const output = `exit ${first.code}\n--- stdout\n${first.stdout}\n--- stderr\n${first.stderr}`;
    expect(first.code, output).toBe(0);
    expect(first.stderr, output).not.toMatch(/^error:/m);
    const lines = first.stdout.split('\n');
    // The header names the columns; further columns may follow, so cells are found by name.
    const headerIndex = lines.findIndex((l) => /^file\s+read\s+loaded\s+rejected\s+repaired\b/.test(l));
    expect(headerIndex, output).toBeGreaterThanOrEqual(0);
    const columns = (lines[headerIndex] as string).trim().split(/\s+/);
    const rows = lines.slice(headerIndex + 1, headerIndex + 7).map((l) => l.trim().split(/\s+/));
    expect(rows.map((r) => r[0])).toEqual([...FILE_NAMES]);
    expect(rows.every((r) => r.length === columns.length), output).toBe(true);
    const cell = (row: string[], column: string) => Number((row[columns.indexOf(column)] as string).replaceAll(',', ''));
    for (const row of rows) {
      const fileName = row[0] as (typeof FILE_NAMES)[number];
      const report = manifest.files[MANIFEST_KEY_OF_FILE[fileName]];
      const [read, loaded, rejected, repaired] = ['read', 'loaded', 'rejected', 'repaired'].map((c) => cell(row, c));
      expect({ file: fileName, read, loaded, rejected }).toEqual({
        file: fileName,
        read: report.rows,
        loaded: manifest.expected[TABLE_OF_FILE[fileName]],
        rejected: report.rows - manifest.expected[TABLE_OF_FILE[fileName]],
      });
      const quotes = report.quirks as Record<string, number>;
      expect(repaired, fileName).toBe(fileName === 'photos.csv' ? (quotes.unterminatedAtEnd ?? 0) + (quotes.unterminatedInMiddle ?? 0) : 0);
    }
    expect(manifest.files.photos.quirks.unterminatedInMiddle).toBeGreaterThan(0);
    const totalRejected = Object.values(manifest.files).reduce((n, f) => n + f.rows - f.expectedLoaded, 0);
    expect(first.stdout).toMatch(new RegExp(`${totalRejected.toLocaleString('en-US')} rejected rows kept in table load_rejects`));
  });

  it('leaves the manifest counts in the live tables and every rejected row in load_rejects', async () => {
    for (const [table, expected] of Object.entries(manifest.expected)) {
      expect(await tableCount(db.url, table), table).toBe(expected);
    }
    const totalRejected = Object.values(manifest.files).reduce((n, f) => n + f.rows - f.expectedLoaded, 0);
    expect(await tableCount(db.url, 'load_rejects')).toBe(totalRejected);
  });

  it('keeps the catalogue when the loader is killed mid-load, and the next load cleans up after it', async () => {
    const before = await query<{ digest: string }>(db.url, `SELECT md5(string_agg(id || name || default_price, ',' ORDER BY id)) AS digest FROM products`);
    // Killed once every file is in the staging tables, before keys, documents and the swap.
    const child = spawn(NODE, [LOAD, '--dir', GOOD, '--replace'], { cwd: ROOT, env: { ...process.env, CI: '1', DATABASE_URL: db.url }, stdio: ['ignore', 'pipe', 'pipe'] });
    const killed = await new Promise<boolean>((resolve) => {
      // A failure bound, not a wait: a loaded two-core host takes minutes to stage the files.
      const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(false); }, 180_000);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        if (chunk.includes('building primary keys')) { child.kill('SIGKILL'); clearTimeout(timer); resolve(true); }
      });
    });
    await new Promise((resolve) => child.once('close', resolve));
    expect(killed).toBe(true);
    for (const [table, expected] of Object.entries(manifest.expected)) expect(await tableCount(db.url, table), table).toBe(expected);
    expect(await query(db.url, `SELECT md5(string_agg(id || name || default_price, ',' ORDER BY id)) AS digest FROM products`)).toEqual(before);
    expect(await tableCount(db.url, 'product_style_documents')).toBeGreaterThan(0);

    const again = await run(LOAD, ['--dir', GOOD, '--replace'], { DATABASE_URL: db.url });
    expect(again.code, again.stderr).toBe(0);
    const runs = await query<{ status: string; error: string | null }>(db.url, `SELECT status, summary->>'error' AS error FROM load_runs ORDER BY id`);
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'failed', 'succeeded']);
    expect(runs[1]!.error).toMatch(/interrupted/);
    expect(await query(db.url, `SELECT 1 FROM pg_namespace WHERE nspname = 'catalog_staging'`)).toHaveLength(0);
  }, 300_000);

  it('refuses to load again without --replace, and keeps the catalogue', async () => {
    const line = expectCleanFailure(await run(LOAD, ['--dir', GOOD], { DATABASE_URL: db.url }), /--replace/);
    expect(line).toContain(manifest.expected.products.toLocaleString('en-US'));
    expect(await tableCount(db.url, 'products')).toBe(manifest.expected.products);
    expect(await tableCount(db.url, 'skus')).toBe(manifest.expected.skus);
  });
});

describe('data:generate: operator mistakes', () => {
  for (const scale of ['abc', '0', '-1', '11', 'Infinity', '']) {
    it(`--scale=${scale} is a usage error`, async () => {
      const out = path.join(tmp, `never-${copies++}`);
      expectCleanFailure(await run(GENERATE, [`--scale=${scale}`, '--out', out]), /--scale must be a number[\s\S]*usage: /);
      expect(fs.existsSync(out)).toBe(false);
    });
  }

  it('--scale -1 (separate argument) is a usage error', async () => {
    expectCleanFailure(await run(GENERATE, ['--scale', '-1', '--out', path.join(tmp, 'never')]), /--scale[\s\S]*usage: /);
  });

  it('missing --scale is a usage error', async () => {
    expectCleanFailure(await run(GENERATE, ['--out', path.join(tmp, 'never')]), /--scale must be a number[\s\S]*usage: /);
  });

  it('missing --out is a usage error', async () => {
    const line = expectCleanFailure(await run(GENERATE, ['--scale', '0.001']), /--out is required\nusage: /);
    expect(line).toBe('error: --out is required');
  });

  it('a bad --seed is a usage error', async () => {
    expectCleanFailure(await run(GENERATE, ['--scale', '0.001', '--out', path.join(tmp, 'never'), '--seed', 'x']), /--seed must be an integer/);
  });

  it('a scale too small for 10 products is a clear error', async () => {
    expectCleanFailure(await run(GENERATE, ['--scale', '0.000001', '--out', path.join(tmp, 'never')]), /fewer than 10 products/);
  });

  it('--out pointing at a file is a clear error', async () => {
    const file = path.join(GOOD, 'product.csv');
    const line = expectCleanFailure(await run(GENERATE, ['--scale', '0.0001', '--out', file]), /cannot write to/);
    expect(line).toContain(file);
  });

  it('a good run exits 0, reports what it wrote and leaves a manifest', async () => {
    const out = path.join(tmp, 'generated');
    const result = await run(GENERATE, ['--scale', '0.0001', '--out', out, '--seed', '5']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^wrote [\d,]+ rows to .* \(scale 0\.0001, seed 5, realistic text\)$/m);
    expect(result.stdout).toMatch(/^expected after a clean load: products 100, /m);
    const written = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as Manifest;
    expect(written.seed).toBe(5);
    expect(written.expected.products).toBe(100);
  });
});
