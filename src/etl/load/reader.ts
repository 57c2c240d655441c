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
 * The fields of one line of plain CSV, text[start, end): every field bare
 * (no quote in it) or quoted whole (inner quotes doubled, the closing quote
 * right before a comma or the end). Undefined for anything else, which Papa
 * Parse then decides. Nearly every line of the legacy files is plain, and
 * splitting it here, without a general parser's state machine and
 * allocations, is what keeps the parse threads from being the load's
 * bottleneck (docs/data.md, "ETL speed"). A plain line has balanced quotes,
 * so it needs no repair.
 */
export function splitPlainLine(text: string, start: number, end: number): string[] | undefined {
  const fields: string[] = [];
  let i = start;
  for (;;) {
    if (i < end && text.charCodeAt(i) === QUOTE) {
      let value = '';
      let from = i + 1;
      let j = from;
      for (;;) {
        while (j < end && text.charCodeAt(j) !== QUOTE) j++;
        if (j === end) return undefined; // unterminated
        if (j + 1 < end && text.charCodeAt(j + 1) === QUOTE) { // a doubled quote
          value += text.slice(from, j + 1);
          j += 2;
          from = j;
          continue;
        }
        fields.push(from === i + 1 ? text.slice(from, j) : value + text.slice(from, j));
        i = j + 1;
        break;
      }
      if (i === end) return fields;
      if (text.charCodeAt(i) !== COMMA) return undefined; // text after the closing quote
      i++;
    } else {
      let j = i;
      for (let c = 0; j < end && (c = text.charCodeAt(j)) !== COMMA; j++) if (c === QUOTE) return undefined;
      fields.push(text.slice(i, j));
      if (j === end) return fields;
      i = j + 1;
    }
  }
}

const QUOTE = 34;
const COMMA = 44;

/**
 * Parses `text`, whole lines of a file whose first is physical line
 * `firstLine`, in batches of lines, each line on its own: plain lines split
 * directly, the others (an unbalanced quote closed at the end first) by Papa
 * Parse. `unterminatedTail`: the text is the end of the file and does not
 * end with a newline, so its last line is flagged.
 */
export function* parseLines(text: string, firstLine: number, unterminatedTail: boolean): Generator<ParsedLine[]> {
  let lineNumber = firstLine;
  let batch: ParsedLine[] = [];
  const take = (start: number, end: number, last: boolean): void => {
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end; // without a CR
    const raw = text.slice(start, stop);
    const line = lineNumber++;
    const fields = splitPlainLine(text, start, stop);
    if (fields !== undefined) {
      batch.push({ line, raw, fields, repairedQuote: false, unterminatedLast: last });
      return;
    }
    const repairedQuote = countQuotes(raw) % 2 === 1;
    batch.push(parseAlone({ line, raw, text: repairedQuote ? `${raw}"` : raw, repairedQuote, unterminatedLast: last }));
  };
  let start = 0;
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    take(start, end, false);
    start = end + 1;
    if (batch.length >= BATCH_LINES) { yield batch; batch = []; }
  }
  if (start < text.length) take(start, text.length, unterminatedTail);
  if (batch.length > 0) yield batch;
}
