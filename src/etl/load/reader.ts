// Reads a legacy CSV file as one record per physical line. Every line is parsed
// by a real CSV parser (Papa Parse, about ten times faster than csv-parse on
// these files), but in isolation from its neighbours where
// it matters: a line with an unbalanced quote is repaired (closing quote at the
// end of the line) before parsing, and any batch whose records do not map 1:1
// onto its lines is re-parsed line by line. So one broken row can never swallow
// the rows after it, which is what a plain `COPY ... CSV` does with these files.
import fs from 'node:fs';
import Papa from 'papaparse';

export interface ParsedLine {
  /** 1-based physical line number in the file (the header is line 1). */
  line: number;
  raw: string;
  fields: string[] | undefined;
  /** Why the line could not be parsed as CSV (when fields is undefined). */
  error?: string;
  /** The line had an unterminated quote that was closed at the end of the line. */
  repairedQuote: boolean;
  /** The last line of the file, not terminated by a newline. */
  unterminatedLast: boolean;
}

export class ReadError extends Error {}

const BATCH_LINES = 2_000;
const PARSE_OPTIONS = { delimiter: ',', newline: '\n', quoteChar: '"', escapeChar: '"', skipEmptyLines: false } as const;

/** Parses CSV text; throws with the parser's first complaint. */
function parse(text: string): string[][] {
  const result = Papa.parse<string[]>(text, PARSE_OPTIONS);
  const first = result.errors[0];
  if (first) throw new Error(first.message);
  return result.data;
}

function countQuotes(text: string): number {
  let n = 0;
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) n++;
  return n;
}

interface PendingLine { line: number; raw: string; text: string; repairedQuote: boolean; unterminatedLast: boolean }

function parseAlone(pending: PendingLine): ParsedLine {
  const { line, raw, repairedQuote, unterminatedLast } = pending;
  try {
    const records = parse(pending.text);
    if (records.length !== 1) return { line, raw, fields: undefined, error: 'not a single CSV record', repairedQuote, unterminatedLast };
    return { line, raw, fields: records[0], repairedQuote, unterminatedLast };
  } catch (error) {
    const message = (error as Error).message;
    return { line, raw, fields: undefined, error: repairedQuote ? `unterminated quote (${message})` : `malformed CSV (${message})`, repairedQuote, unterminatedLast };
  }
}

/** `joined`: the batch's lines as they stand in the file, when none needed changing (saves a join). */
function parseBatch(batch: PendingLine[], joined?: string): ParsedLine[] {
  try {
    const records = parse(joined ?? batch.map((p) => p.text).join('\n'));
    // Each record consumes at least one line, so equal counts mean one record per line.
    if (records.length === batch.length) {
      return batch.map((p, i) => ({ line: p.line, raw: p.raw, fields: records[i], repairedQuote: p.repairedQuote, unterminatedLast: p.unterminatedLast }));
    }
  } catch {
    // fall through: find the culprit line by line
  }
  return batch.map(parseAlone);
}

/** The header line (without BOM or CR), or undefined for an empty file. */
export async function readHeader(file: string): Promise<string | undefined> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead === 0) return undefined;
    let text = buffer.subarray(0, bytesRead).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const end = text.indexOf('\n');
    return (end === -1 ? text : text.slice(0, end)).replace(/\r$/, '');
  } finally {
    await handle.close();
  }
}

/**
 * Parses `text`, whole lines of a file whose first is physical line
 * `firstLine`, in batches. `unterminatedTail`: the text is the end of the
 * file and does not end with a newline, so its last line is flagged.
 */
export function* parseLines(text: string, firstLine: number, unterminatedTail: boolean): Generator<ParsedLine[]> {
  let lineNumber = firstLine;
  let batch: PendingLine[] = [];
  let batchStart = 0;
  let changed = false; // a line of the batch differs from its text in the file
  const take = (line: string, last: boolean): void => {
    const raw = line.endsWith('\r') ? line.slice(0, -1) : line;
    const repairedQuote = countQuotes(raw) % 2 === 1;
    if (repairedQuote || raw.length !== line.length) changed = true;
    batch.push({ line: lineNumber++, raw, text: repairedQuote ? `${raw}"` : raw, repairedQuote, unterminatedLast: last });
  };
  const flush = (end: number): ParsedLine[] => {
    const parsed = parseBatch(batch, changed ? undefined : text.slice(batchStart, end));
    batch = [];
    changed = false;
    return parsed;
  };
  let start = 0;
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    take(text.slice(start, end), false);
    start = end + 1;
    if (batch.length >= BATCH_LINES) { yield flush(end); batchStart = start; }
  }
  if (start < text.length) take(text.slice(start), unterminatedTail);
  if (batch.length > 0) yield flush(start < text.length ? text.length : start - 1);
}
