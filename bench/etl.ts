// npm run bench:etl -- --scale <f> [--seed <n>] [--text realistic|unrelated|repetitive] [--dir <files>] [--runs <n>] [--regenerate] [--with-migrated] [--save <name>]
//
// Generates (or reuses) legacy files at the given scale, loads them with the
// real loader (a child process, exactly as an operator runs it), then times a
// bare Postgres COPY of the same clean rows into unindexed tables followed by
// the builds of the keys and indexes the migrations define (the floor the
// loader is held to), and prints both with their ratio. With --runs n the
// load runs n times and the run of the median time stands for them (each
// run's time, CPU and memory kept beside it); the floor is timed once. Runs on a separate
// `<database>_bench` database so it never touches the catalogue you are working with.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { loadConfig } from '../src/config.ts';
import { UsageError, runCommand } from '../src/commands/run.ts';
import { ensureBenchDatabase } from './lib/bench-database.ts';
import { openDatabase } from '../src/db/server/open-database.ts';
import { readMigrations } from '../src/db/server/migrate.ts';
import { generateCatalogue, isCurrent, readManifest } from '../src/etl/generate/generate.ts';
import { TEXT_STYLES, type TextStyle } from '../src/etl/generate/values.ts';
import type { LoadSummary } from '../src/etl/load/load.ts';
import { TABLES } from '../src/etl/load/tables.ts';
import { BUILD_SETTINGS, type Build, type Definitions, READ_MODEL_TABLES, liveDefinitions } from '../src/etl/load/definitions.ts';
import { LOADER_SCRIPT, loaderArguments, loaderEnvironment } from './lib/etl-loader.ts';
import { endProvenance, publish, savedName, startProvenance } from './lib/provenance.ts';

const USAGE = 'usage: npm run bench:etl -- --scale <f> [--seed <n>] [--text realistic|unrelated|repetitive] [--dir <generated files to reuse>] [--runs <n>] [--regenerate] [--with-migrated] [--save <name>]';

function runLoader(databaseUrl: string, dir: string, summaryFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...loaderArguments(), LOADER_SCRIPT, '--dir', dir, '--replace', '--summary-json', summaryFile], {
      stdio: 'inherit', env: { ...process.env, ...loaderEnvironment(), DATABASE_URL: databaseUrl },
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`data:load exited with ${code}`))));
  });
}

type Baseline = 'unindexed' | 'migrated';

/**
 * Times a bare COPY of the exported clean rows, two streams at a time, into
 * fresh tables: either with no keys or indexes at all (the floor: pure ingest,
 * then the keys and indexes built two at a time, timed apart), or created by
 * the migrations, keys, indexes and foreign keys in place (what `\copy` of
 * clean files into the schema costs).
 */
async function bareCopy(databaseUrl: string, cleanDir: string, baseline: Baseline): Promise<{ copy: number; indexes: number; readModelIndexes: number }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  try {
    await pool.query('DROP SCHEMA IF EXISTS bench_bare CASCADE; CREATE SCHEMA bench_bare');
    if (baseline === 'unindexed') {
      for (const spec of TABLES) await pool.query(`CREATE TABLE bench_bare.${spec.table} (LIKE public.${spec.table} INCLUDING DEFAULTS)`);
    } else {
      const client = await pool.connect();
      try {
        await client.query('SET search_path = bench_bare');
        for (const migration of readMigrations()) await client.query(migration.sql);
      } finally {
        client.release();
      }
    }
    // Parents first when foreign keys are live; biggest first otherwise.
    const order = baseline === 'migrated'
      ? [['products'], ['features', 'styles', 'related'], ['photos', 'skus']]
      : [[...TABLES].sort((a, b) => fs.statSync(path.join(cleanDir, b.table)).size - fs.statSync(path.join(cleanDir, a.table)).size).map((t) => t.table)];
    const started = performance.now();
    for (const group of order) {
      const queue = [...group];
      await Promise.all([0, 1].map(async () => {
        for (let table = queue.shift(); table; table = queue.shift()) {
          const spec = TABLES.find((t) => t.table === table)!;
          const client = await pool.connect();
          try {
            await pipeline(fs.createReadStream(path.join(cleanDir, table)), client.query(copyFrom(`COPY bench_bare.${table} (${spec.columns.join(', ')}) FROM STDIN WITH (FORMAT csv)`)));
          } finally {
            client.release();
          }
        }
      }));
    }
    const copied = performance.now();
    let indexes = 0;
    let readModelIndexes = 0;
    if (baseline === 'unindexed') {
      // The read model's rows are derived (the loader computes them, as it
      // cleans the catalogue's): put in place untimed, copied from the load.
      // Its keys and indexes are builds like the catalogue's, of the same
      // end state, so the floor times them too (docs/data.md, "ETL speed").
      for (const table of READ_MODEL_TABLES) {
        await pool.query(`CREATE TABLE bench_bare.${table} (LIKE public.${table} INCLUDING DEFAULTS); INSERT INTO bench_bare.${table} SELECT * FROM public.${table}`);
      }
      const control = await pool.connect();
      let definitions: Definitions;
      try {
        definitions = await liveDefinitions(control, 'bench_bare', [...TABLES.map((t) => t.table), ...READ_MODEL_TABLES]);
      } finally {
        control.release();
      }
      const buildAll = async (builds: string[]) => {
        await Promise.all([0, 1].map(async () => {
          const client = await pool.connect();
          try {
            await client.query(BUILD_SETTINGS);
            for (let sql = builds.shift(); sql; sql = builds.shift()) await client.query(sql);
          } finally {
            client.release();
          }
        }));
      };
      const catalogue = (b: Build) => TABLES.some((t) => t.table === b.table);
      const timed = performance.now();
      await buildAll([...definitions.keys, ...definitions.indexes].filter(catalogue).map((b) => b.sql));
      const built = performance.now();
      await buildAll([...definitions.keys, ...definitions.indexes].filter((b) => !catalogue(b)).map((b) => b.sql));
      indexes = (built - timed) / 1000;
      readModelIndexes = (performance.now() - built) / 1000;
    }
    await pool.query('DROP SCHEMA bench_bare CASCADE');
    return { copy: (copied - started) / 1000, indexes, readModelIndexes };
  } finally {
    await pool.end();
  }
}

/** The load's cores over its wall time: busy with it, wanted by it, busy on the whole host (cpu-meter.ts; '-' where not measured). */
function coresDuringLoad(summary: LoadSummary): string {
  const { loader, database, wanted, host } = summary.cpu.total;
  const wall = Math.max(summary.seconds.total, 0.001);
  return [loader + (database ?? 0), wanted, host].map((v) => (v === undefined ? '-' : (v / wall).toFixed(2))).join('/');
}

async function exportClean(databaseUrl: string, cleanDir: string): Promise<void> {
  fs.mkdirSync(cleanDir, { recursive: true });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const spec of TABLES) {
      await pipeline(client.query(copyTo(`COPY public.${spec.table} (${spec.columns.join(', ')}) TO STDOUT WITH (FORMAT csv)`)), fs.createWriteStream(path.join(cleanDir, spec.table)));
    }
  } finally {
    await client.end();
  }
}

interface TimedLoad { seconds: number; loadAverage: string; summary: LoadSummary }

/** One full load into `bench`, timed, with the host's 1-minute load average while it ran (a shared host moves every figure). */
async function timedLoad(bench: string, dir: string, summaryFile: string): Promise<TimedLoad> {
  const started = performance.now();
  const loads: number[] = [os.loadavg()[0]!];
  const sampler = setInterval(() => loads.push(os.loadavg()[0]!), 5_000);
  try {
    await runLoader(bench, dir, summaryFile);
  } finally {
    clearInterval(sampler);
  }
  return {
    seconds: (performance.now() - started) / 1000,
    loadAverage: `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}, mean ${(loads.reduce((a, b) => a + b, 0) / loads.length).toFixed(1)}`,
    summary: JSON.parse(fs.readFileSync(summaryFile, 'utf8')) as LoadSummary,
  };
}

runCommand(async () => {
  let values;
  try {
    ({ values } = parseArgs({ options: {
      scale: { type: 'string', default: '0.01' }, seed: { type: 'string', default: '1' }, dir: { type: 'string' },
      regenerate: { type: 'boolean', default: false }, 'with-migrated': { type: 'boolean', default: false }, save: { type: 'string' },
      text: { type: 'string', default: 'realistic' }, runs: { type: 'string', default: '1' },
    } }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const scale = Number(values.scale);
  const seed = Number(values.seed);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 10) throw new UsageError(`--scale must be a number above 0 and at most 10\n${USAGE}`);
  if (!Number.isInteger(seed) || seed < 0) throw new UsageError('--seed must be a non-negative integer');
  const save = savedName(values.save);
  if (!(TEXT_STYLES as readonly string[]).includes(values.text)) throw new UsageError(`--text must be one of ${TEXT_STYLES.join(', ')} (got ${values.text})`);
  const text = values.text as TextStyle;
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 5) throw new UsageError('--runs must be an integer from 1 to 5');
  const provenance = startProvenance('bench:etl', process.argv.slice(2), { scale, seed, generated: `npm run data:generate, --text ${text}` });
  const config = loadConfig();
  const dir = values.dir ? path.resolve(values.dir) : path.join(config.dataDir, 'bench', `scale-${scale}`);
  const results: Record<string, number | string | null> = { scale, seed, dir };

  const manifest = readManifest(dir);
  if (values.dir && !isCurrent(manifest, { scale, seed, text })) throw new UsageError(`${dir} holds no files of this generator for scale ${scale}, seed ${seed} and --text ${text}`);
  if (!values.regenerate && isCurrent(manifest, { scale, seed, text })) {
    console.log(`reusing the files in ${dir} (use --regenerate to time generation)`);
    results.generateSeconds = null;
  } else {
    console.log(`generating scale ${scale} into ${dir}`);
    const started = performance.now();
    await generateCatalogue({ scale, seed, text, out: dir });
    results.generateSeconds = (performance.now() - started) / 1000;
  }

  const database = await openDatabase(config, console.log);
  let summary: LoadSummary;
  let runFigures: { loadSeconds: number; cpuSeconds: number; peakMemoryMb: number; loadAverage: string }[] | undefined;
  try {
    const { url: bench, name } = await ensureBenchDatabase(database.url);
    console.log(`\nloading into database ${name}`);
    fs.mkdirSync(path.join(config.dataDir, 'bench'), { recursive: true });
    const summaryFile = path.join(config.dataDir, 'bench', `load-summary-scale-${scale}.json`);
    const loads: TimedLoad[] = [];
    for (let run = 1; run <= runs; run++) {
      if (runs > 1) console.log(`\nload ${run} of ${runs}`);
      loads.push(await timedLoad(bench, dir, summaryFile));
    }
    // The run of the median wall time stands for them all; each run's figures are kept beside it.
    const middle = [...loads].sort((a, b) => a.seconds - b.seconds)[Math.floor(loads.length / 2)]!;
    results.runs = loads.length;
    results.loadSeconds = middle.seconds;
    results.loadAverage = middle.loadAverage;
    summary = middle.summary;
    if (loads.length > 1) runFigures = loads.map((l) => ({ loadSeconds: l.seconds, cpuSeconds: l.summary.cpu.total.loader + (l.summary.cpu.total.database ?? 0), peakMemoryMb: l.summary.peakMemoryMb, loadAverage: l.loadAverage }));
    results.loaderPeakMemoryMb = summary.peakMemoryMb;
    results.loaderCpuSeconds = summary.cpu.total.loader;
    results.databaseCpuSeconds = summary.cpu.total.database ?? null;
    results.rows = summary.files.reduce((n, f) => n + f.loaded, 0);

    console.log('\nexporting the clean rows for the bare COPY baseline');
    const cleanDir = path.join(config.dataDir, 'bench', `clean-scale-${scale}`);
    await exportClean(bench, cleanDir);
    console.log('timing a bare COPY of the same rows into unindexed tables (no keys, no checks), then the key and index builds');
    const floor = await bareCopy(bench, cleanDir, 'unindexed');
    results.bareCopyUnindexedSeconds = floor.copy;
    results.indexBuildSeconds = floor.indexes;
    results.readModelIndexBuildSeconds = floor.readModelIndexes;
    if (values['with-migrated']) {
      console.log('timing a bare COPY of the same rows into the migrated tables (keys, indexes, foreign keys in place)');
      results.bareCopyMigratedSeconds = (await bareCopy(bench, cleanDir, 'migrated')).copy;
    }
    fs.rmSync(cleanDir, { recursive: true, force: true });
  } finally {
    await database.close();
  }

  const load = results.loadSeconds as number;
  const unindexed = results.bareCopyUnindexedSeconds as number;
  const catalogueFloor = unindexed + (results.indexBuildSeconds as number);
  const floorSeconds = catalogueFloor + (results.readModelIndexBuildSeconds as number);
  results.floorSeconds = floorSeconds;
  results.catalogueFloorSeconds = catalogueFloor;
  results.ratio = load / floorSeconds;
  results.ratioToCatalogueFloor = load / catalogueFloor;
  results.ratioToUnindexed = load / unindexed;
  const gen = results.generateSeconds;
  const s = summary.seconds;
  const rows = [
    ['generation', gen === null ? 'reused' : `${(gen as number).toFixed(1)} s`, 'target < 120 s at scale 1'],
    ['full load (files, keys, indexes, FKs, ANALYZE, read models, swap)', `${load.toFixed(1)} s`, `target <= 240 s at scale 1; files ${s.files.toFixed(1)}, keys ${s.keys.toFixed(1)}, builds ${s.build.toFixed(1)}, finish ${s.finish.toFixed(1)}, swap ${s.swap.toFixed(1)}`],
    ['host load average during the load (1 min: lowest-highest, mean)', String(results.loadAverage), ''],
    ['CPU of the load: loader + its database backends', summary.cpu.total.database === undefined ? `${summary.cpu.total.loader.toFixed(1)} s` : `${(summary.cpu.total.loader + summary.cpu.total.database).toFixed(1)} s`,
      summary.cpu.total.database === undefined ? 'loader only (the server is not on this machine)' : `loader ${summary.cpu.total.loader.toFixed(1)}, database ${summary.cpu.total.database.toFixed(1)}; half of it: the load on two otherwise idle cores`],
    ['cores during the load: busy with it/wanted by it/busy on the host', coresDuringLoad(summary), 'wanted: its threads and backends ready to run (what it keeps busy on an idle host)'],
    ['builds, database CPU seconds by kind', '', Object.entries(summary.buildCpu).map(([kind, seconds]) => `${kind} ${seconds.toFixed(1)}`).join(', ')],
    ['bare COPY, same clean rows, into unindexed tables', `${unindexed.toFixed(1)} s`, 'ingest only'],
    ['then building their keys and indexes', `${(results.indexBuildSeconds as number).toFixed(1)} s`, ''],
    ['then the read model\'s keys and indexes (browse, documents)', `${(results.readModelIndexBuildSeconds as number).toFixed(1)} s`, 'rows put in place untimed'],
    ['floor: bare COPY + every key and index build', `${floorSeconds.toFixed(1)} s`, ''],
    ['ratio full load / floor', `${results.ratio.toFixed(2)}x`, ''],
    ['ratio full load / floor without the read model\'s builds', `${results.ratioToCatalogueFloor.toFixed(2)}x`, `(floor ${catalogueFloor.toFixed(1)} s)`],
    ['ratio full load / bare COPY alone', `${results.ratioToUnindexed.toFixed(2)}x`, ''],
    ...(results.bareCopyMigratedSeconds === undefined ? [] : [
      ['bare COPY, same clean rows, into the migrated schema', `${(results.bareCopyMigratedSeconds as number).toFixed(1)} s`, `full load / this ${(load / (results.bareCopyMigratedSeconds as number)).toFixed(2)}x`],
    ]),
    ['loader peak memory (max RSS, workers included)', `${results.loaderPeakMemoryMb} MB`, 'target < 300 MB'],
    ['rows loaded', (results.rows as number).toLocaleString('en-US'), ''],
  ];
  const width = Math.max(...rows.map((r) => r[0]!.length));
  console.log(`\nETL benchmark, scale ${scale}, seed ${seed}`);
  for (const [label, value, target] of rows) console.log(`${label!.padEnd(width)}  ${value!.padStart(10)}  ${target}`);
  if (runFigures) console.log(`each load: ${runFigures.map((r) => `${r.loadSeconds.toFixed(1)} s, ${r.cpuSeconds.toFixed(1)} CPU-s, ${r.peakMemoryMb} MB`).join('; ')}`);
  const document = { provenance: { ...endProvenance(provenance), data: { ...provenance.data, rows: results.rows } }, results, summary, ...(runFigures ? { runs: runFigures } : {}) };
  fs.writeFileSync(path.join(config.dataDir, 'bench', `etl-scale-${scale}.json`), `${JSON.stringify(document, null, 2)}\n`);
  if (save) console.log(`results published as ${path.relative(process.cwd(), publish(save, document))}`);
});
