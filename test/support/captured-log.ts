// A log destination for a test server that keeps every line it writes,
// parsed: a line that is not JSON fails the test.

export interface LogLine {
  level: number;
  time: number;
  reqId?: string;
  msg: string;
  [field: string]: unknown;
}

export class CapturedLog {
  readonly lines: LogLine[] = [];
  write(chunk: string): void {
    for (const line of chunk.split('\n')) if (line !== '') this.lines.push(JSON.parse(line) as LogLine);
  }
  /** The lines of one request. */
  of(reqId: string): LogLine[] {
    return this.lines.filter((line) => line.reqId === reqId);
  }
}
