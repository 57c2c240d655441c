// Loads one legacy file into its staging table: its chunks are parsed and
// cleaned on the parse threads, then taken in file order here, where the
// duplicate-id check (which needs that order) runs, rejected rows go to the
// rejects sink with file, line and reason, and the rows are copied in over
// several connections at once.
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { ProgressTask } from '../progress.ts';
import { splitFile } from './chunks.ts';
import { CopyWriter } from './copy-writer.ts';
import { IdSet } from './id-set.ts';
import type { ParsePool } from './parse-pool.ts';
import type { ChunkResult } from './parse-protocol.ts';
import type { LoadedIds, TableSpec } from './tables.ts';

export const STAGING_SCHEMA = 'catalog_staging';

export class LoadError extends Error {}

export interface FileStats {
  file: string;
  read: number;
  loaded: number;
  rejected: number;
  /** Rows loaded after a fix (an unterminated quote closed, a URL's quotes mended). */
  repaired: number;
  seconds: number;
}

export interface RejectSink {
  add(file: string, line: number, reason: string, raw: string): Promise<void>;
}

/** Bytes of file per parse task: big enough to amortise a message, small enough to keep memory flat. */
const CHUNK_BYTES = 256 * 1024;
/** Chunks of one file parsed ahead of the one being copied. */
const WINDOW = 3;

/** The lines of [start, end) of a file (a rare path: the raw text of a duplicate). */
function readLines(file: string, start: number, end: number): string[] {
  const bytes = Buffer.allocUnsafe(end - start);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, bytes, 0, bytes.length, start);
  } finally {
    fs.closeSync(fd);
  }
  return bytes.toString('utf8').split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** The COPY text without the rows at `drop` (indexes of accepted rows). */
function withoutRows(copy: Uint8Array, drop: Set<number>): Uint8Array {
  const rows = Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength).toString('utf8').split('\n');
  rows.pop(); // after the last newline
  return Buffer.from(rows.filter((_, i) => !drop.has(i)).map((row) => `${row}\n`).join(''));
}

export async function loadFile(options: {
  spec: TableSpec;
  dir: string;
  clients: pg.PoolClient[];
  pool: ParsePool;
  loaded: LoadedIds;
  rejects: RejectSink;
  progress?: ProgressTask;
  chunkBytes?: number;
}): Promise<FileStats> {
  const { spec, dir, clients, pool, loaded, rejects, progress } = options;
  const file = path.join(dir, spec.fileName);
  // Products and styles record their ids where their children will look for them.
  const seen = spec.table === 'products' ? loaded.products : spec.table === 'styles' ? loaded.styles : new IdSet();
  const started = performance.now();
  const chunks = splitFile(file, options.chunkBytes ?? CHUNK_BYTES);
  const copies = clients.map((client) => new CopyWriter(client, `COPY ${STAGING_SCHEMA}.${spec.table} (${spec.columns.join(', ')}) FROM STDIN`));
  const writes: Promise<void>[] = copies.map(() => Promise.resolve());
  const parsed: Promise<ChunkResult>[] = [];
  const stats: FileStats = { file: spec.fileName, read: 0, loaded: 0, rejected: 0, repaired: 0, seconds: 0 };
  const reject = async (line: number, reason: string, raw: string, quote: boolean) => {
    stats.rejected++;
    await rejects.add(spec.fileName, line, quote && !reason.startsWith('unterminated') ? `unterminated quote (${reason})` : reason, raw);
  };
  let firstLine = 2; // the header is line 1
  try {
    for (let index = 0; index < chunks.length; index++) {
      while (parsed.length < Math.min(chunks.length, index + WINDOW)) {
        const job = pool.run({ ...chunks[parsed.length]!, file: spec.file, path: file });
        job.catch(() => {}); // awaited in order below
        parsed.push(job);
      }
      const chunk = chunks[index]!;
      const result = await parsed[index]!;
      delete parsed[index]; // let the chunk go once copied
      stats.read += result.lineCount;
      // Accepted rows and rejects, merged in line order: an id is a duplicate
      // when a row before it, in the file, was accepted with it.
      const drop = new Set<number>();
      let lines: string[] | undefined;
      const rawLine = (line: number) => (lines ??= readLines(file, chunk.start, chunk.end))[line] ?? '';
      let next = 0;
      const rejectsBefore = async (line: number) => {
        for (; next < result.rejects.length && result.rejects[next]!.line < line; next++) {
          const r = result.rejects[next]!;
          await reject(firstLine + r.line, r.id !== undefined && seen.has(r.id) ? `duplicate id ${r.id}` : r.reason, r.raw, r.quote);
        }
      };
      for (let row = 0; row < result.ids.length; row++) {
        const line = result.lines[row]!;
        if (next < result.rejects.length) await rejectsBefore(line);
        const id = result.ids[row]!;
        if (seen.has(id)) {
          drop.add(row);
          await reject(firstLine + line, `duplicate id ${id}`, rawLine(line), result.repaired[row] === 1);
          continue;
        }
        seen.add(id);
        stats.loaded++;
        stats.repaired += result.repaired[row]!;
      }
      await rejectsBefore(Infinity);
      if (result.truncated) {
        const { line, reason } = result.truncated;
        throw new LoadError(reason === undefined
          ? `${spec.fileName} line ${firstLine + line}: the file ends inside a quoted field; is it truncated?`
          : `${spec.fileName} line ${firstLine + line}: the file ends in the middle of a row (${reason}); is it truncated?`);
      }
      firstLine += result.lineCount;
      const copy = drop.size > 0 ? withoutRows(result.copy, drop) : result.copy;
      if (copy.byteLength > 0) {
        // Round robin over the connections; each has one write in flight at most.
        const stream = index % copies.length;
        await writes[stream];
        writes[stream] = copies[stream]!.write(Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength));
        writes[stream]!.catch(() => {}); // awaited before the next write and at the end
      }
      progress?.update(chunk.end, stats.read);
    }
    await Promise.all(writes);
    await Promise.all(copies.map((copy) => copy.end()));
  } catch (error) {
    for (const copy of copies) copy.destroy();
    throw error;
  }
  stats.seconds = (performance.now() - started) / 1000;
  progress?.finish(`${spec.fileName}: ${stats.loaded.toLocaleString('en-US')} loaded, ${stats.rejected.toLocaleString('en-US')} rejected in ${stats.seconds.toFixed(1)} s`);
  return stats;
}
