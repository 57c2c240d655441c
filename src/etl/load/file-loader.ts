// Streams one legacy file into its staging table: parse, clean, COPY.
// Rejected rows go to the rejects sink with file, line and reason.
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { ProgressTask } from '../progress.ts';
import { CopyWriter } from './copy-writer.ts';
import { IdSet } from './id-set.ts';
import { readCsvLines } from './reader.ts';
import { Rejection, type LoadedIds, type TableSpec } from './tables.ts';

export const STAGING_SCHEMA = 'catalog_staging';

export class LoadError extends Error {}

export interface FileStats {
  file: string;
  read: number;
  loaded: number;
  rejected: number;
  /** Rows loaded after a fix (an unterminated quote closed). */
  repaired: number;
  seconds: number;
}

export interface RejectSink {
  add(file: string, line: number, reason: string, raw: string): Promise<void>;
}

const COPY_BATCH_BYTES = 256 * 1024;

export async function loadFile(options: {
  spec: TableSpec;
  dir: string;
  client: pg.PoolClient;
  loaded: LoadedIds;
  rejects: RejectSink;
  progress?: ProgressTask;
}): Promise<FileStats> {
  const { spec, dir, client, loaded, rejects, progress } = options;
  const file = path.join(dir, spec.fileName);
  const size = fs.statSync(file).size;
  // Products and styles record their ids where their children will look for them.
  const seen = spec.table === 'products' ? loaded.products : spec.table === 'styles' ? loaded.styles : new IdSet();
  const started = performance.now();
  const copy = new CopyWriter(client, `COPY ${STAGING_SCHEMA}.${spec.table} (${spec.columns.join(', ')}) FROM STDIN`);
  const stats: FileStats = { file: spec.fileName, read: 0, loaded: 0, rejected: 0, repaired: 0, seconds: 0 };
  let out = '';
  try {
    for await (const batch of readCsvLines(file, (bytes) => progress?.update(Math.min(bytes, size)))) {
      for (const parsed of batch) {
        stats.read++;
        let result: string | Rejection;
        if (parsed.fields === undefined) result = new Rejection(parsed.error ?? 'malformed CSV');
        else if (parsed.fields.length !== spec.fieldCount) result = new Rejection(`expected ${spec.fieldCount} fields, found ${parsed.fields.length}`);
        else result = spec.clean(parsed.fields, parsed.raw, loaded, seen);
        // A last line without its newline that is broken, or only parses once its
        // quote is closed, is the tail of a cut-off file, not a dirty row.
        if (parsed.unterminatedLast && parsed.repairedQuote) {
          throw new LoadError(`${spec.fileName} line ${parsed.line}: the file ends inside a quoted field; is it truncated?`);
        }
        if (result instanceof Rejection) {
          if (parsed.unterminatedLast) {
            throw new LoadError(`${spec.fileName} line ${parsed.line}: the file ends in the middle of a row (${result.reason}); is it truncated?`);
          }
          const reason = parsed.repairedQuote && !result.reason.startsWith('unterminated') ? `unterminated quote (${result.reason})` : result.reason;
          stats.rejected++;
          await rejects.add(spec.fileName, parsed.line, reason, parsed.raw);
          continue;
        }
        seen.add(Number((parsed.fields![0] as string).trim()));
        stats.loaded++;
        if (parsed.repairedQuote) stats.repaired++;
        out += result + '\n';
        if (out.length >= COPY_BATCH_BYTES) { await copy.write(out); out = ''; }
      }
    }
    if (out.length > 0) await copy.write(out);
    await copy.end();
  } catch (error) {
    copy.destroy();
    throw error;
  }
  stats.seconds = (performance.now() - started) / 1000;
  progress?.finish(`${spec.fileName}: ${stats.loaded.toLocaleString('en-US')} loaded, ${stats.rejected.toLocaleString('en-US')} rejected in ${stats.seconds.toFixed(1)} s`);
  return stats;
}
