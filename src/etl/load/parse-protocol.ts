// The messages between the loader's main thread and its parse workers.
import type { FileName } from '../generate/plan.ts';
import type { Chunk } from './chunks.ts';

export interface ChunkTask extends Chunk {
  type: 'chunk';
  id: number;
  file: FileName;
  path: string;
}

/** The parent ids children are checked against, sent before each phase. */
export interface ParentsMessage {
  type: 'parents';
  products: Uint8Array<ArrayBuffer>;
  styles: Uint8Array<ArrayBuffer>;
}

export type WorkerMessage = ChunkTask | ParentsMessage;

export interface ChunkReject {
  /** Line in the chunk, from 0. */
  line: number;
  reason: string;
  raw: string;
  /** The row's id when it was a valid one and the row got as far as clean(): a duplicate's reason wins. */
  id: number | undefined;
  /** The line had an unbalanced quote. */
  quote: boolean;
}

export interface ChunkResult {
  /** Physical lines in the chunk. */
  lineCount: number;
  /** Accepted rows in COPY text format, one per line. */
  copy: Uint8Array<ArrayBuffer>;
  /** Per accepted row: its id, its line in the chunk, and whether it was repaired (1). */
  ids: Int32Array<ArrayBuffer>;
  lines: Int32Array<ArrayBuffer>;
  repaired: Uint8Array<ArrayBuffer>;
  /** Rejected lines, in line order. */
  rejects: ChunkReject[];
  /** The chunk ends the file inside a row: the file is cut off (the chunk's rows stop there). */
  truncated?: { line: number; reason?: string };
}

export type WorkerReply = { id: number; result: ChunkResult } | { id: number; error: string };
