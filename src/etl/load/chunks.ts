// Splits a legacy file's data lines (after the header) into byte ranges that
// start and end on line boundaries, so each can be parsed on its own thread:
// the files hold one record per physical line (see reader.ts).
import fs from 'node:fs';

export interface Chunk {
  /** Byte offsets in the file: [start, end). */
  start: number;
  end: number;
  /** The file's last chunk, and the file does not end with a newline. */
  unterminatedTail: boolean;
}

/** The offset of the first byte after the next newline at or after `from`, or the file size. */
function nextLineStart(fd: number, from: number, size: number): number {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (let position = from; position < size; position += buffer.length) {
    const read = fs.readSync(fd, buffer, 0, buffer.length, position);
    const newline = buffer.subarray(0, read).indexOf(10);
    if (newline !== -1) return position + newline + 1;
    if (read === 0) break;
  }
  return size;
}

export function splitFile(file: string, chunkBytes: number): Chunk[] {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const chunks: Chunk[] = [];
    let start = nextLineStart(fd, 0, size); // after the header
    while (start < size) {
      const end = start + chunkBytes >= size ? size : nextLineStart(fd, start + chunkBytes - 1, size);
      chunks.push({ start, end, unterminatedTail: false });
      start = end;
    }
    const last = chunks.at(-1);
    if (last) {
      const byte = Buffer.alloc(1);
      fs.readSync(fd, byte, 0, 1, size - 1);
      last.unterminatedTail = byte[0] !== 10;
    }
    return chunks;
  } finally {
    fs.closeSync(fd);
  }
}
