// Buffered synchronous line output (generation runs in worker threads, where a
// blocking write is the simplest way to keep memory flat).
import fs from 'node:fs';

const FLUSH_AT = 1 << 20;

export class LineSink {
  private readonly fd: number;
  private buffer = '';
  constructor(file: string) {
    this.fd = fs.openSync(file, 'w');
  }
  line(text: string): void {
    this.buffer += text + '\n';
    if (this.buffer.length >= FLUSH_AT) this.flush();
  }
  flush(): void {
    if (this.buffer.length > 0) fs.writeSync(this.fd, this.buffer);
    this.buffer = '';
  }
  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}

/** A CSV text field as the legacy files write it: always double-quoted. */
export function quote(text: string): string {
  return `"${text.includes('"') ? text.replaceAll('"', '""') : text}"`;
}
