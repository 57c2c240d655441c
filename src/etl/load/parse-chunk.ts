// Parses and cleans one chunk of a legacy file (whole lines) against the
// parent ids it is given, on a parse thread (parse-worker.ts): the accepted
// rows as COPY text plus what the loader's main thread needs to finish them
// in file order (ids for the duplicate check, rejected lines with their
// reasons). Duplicate ids are the one check left to the main thread: only it
// sees the chunks in order.
import fs from 'node:fs';
import { IdSet } from './id-set.ts';
import { parseLines } from './reader.ts';
import { Rejection, TABLE_BY_FILE, rowId, type LoadedIds } from './tables.ts';
import type { ChunkResult, ChunkTask } from './parse-protocol.ts';

// Duplicates are the main thread's: to clean(), nothing has been seen yet.
const nothingSeen = new IdSet();
const encoder = new TextEncoder();

export function parseChunk(task: ChunkTask, loaded: LoadedIds): ChunkResult {
  const spec = TABLE_BY_FILE[task.file];
  const length = task.end - task.start;
  const bytes = Buffer.allocUnsafe(length);
  const fd = fs.openSync(task.path, 'r');
  try {
    for (let done = 0; done < length;) {
      const read = fs.readSync(fd, bytes, done, length - done, task.start + done);
      if (read === 0) throw new Error(`${spec.fileName} changed while loading (shorter than expected)`);
      done += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  const result: ChunkResult = { lineCount: 0, copy: new Uint8Array(0), ids: new Int32Array(0), lines: new Int32Array(0), repaired: new Uint8Array(0), rejects: [] };
  const ids: number[] = [];
  const lines: number[] = [];
  const repaired: number[] = [];
  let out = '';
  // Line numbers are relative to the chunk (its first line is 0): the main thread adds the offset.
  for (const batch of parseLines(bytes.toString('utf8'), 0, task.unterminatedTail)) {
    for (const parsed of batch) {
      result.lineCount++;
      let row: string | Rejection;
      let id: number | undefined;
      if (parsed.fields === undefined) row = new Rejection(parsed.error ?? 'malformed CSV');
      else if (parsed.fields.length !== spec.fieldCount) row = new Rejection(`expected ${spec.fieldCount} fields, found ${parsed.fields.length}`);
      else { row = spec.clean(parsed.fields, parsed.raw, loaded, nothingSeen); id = rowId(parsed.fields); }
      // A last line without its newline that is broken, or only parses once its
      // quote is closed, is the tail of a cut-off file, not a dirty row.
      if (parsed.unterminatedLast && parsed.repairedQuote) {
        result.truncated = { line: parsed.line };
        break;
      }
      let fixed = false;
      if (row instanceof Rejection) {
        if (parsed.unterminatedLast) {
          result.truncated = { line: parsed.line, reason: row.reason };
          break;
        }
        const fields = spec.repair?.(parsed.raw);
        const retried = fields && spec.clean(fields, parsed.raw, loaded, nothingSeen);
        if (fields && typeof retried === 'string') { row = retried; id = rowId(fields); fixed = true; }
      }
      if (row instanceof Rejection) {
        result.rejects.push({ line: parsed.line, reason: row.reason, raw: parsed.raw, id, quote: parsed.repairedQuote });
        continue;
      }
      ids.push(id as number);
      lines.push(parsed.line);
      repaired.push(fixed || parsed.repairedQuote ? 1 : 0);
      out += `${row}\n`;
    }
    if (result.truncated) break;
  }
  result.copy = encoder.encode(out);
  result.ids = Int32Array.from(ids);
  result.lines = Int32Array.from(lines);
  result.repaired = Uint8Array.from(repaired);
  return result;
}

